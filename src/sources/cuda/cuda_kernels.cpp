// SPDX-License-Identifier: Apache-2.0
// Hand-written PTX. The pattern is engine::pattern_value: x = i * 0x9E3779B1 + seed (mod
// 2^32); the sentinel 0xC0E00000 becomes 0x3F800000. Constants are written as signed 32-bit
// decimals: -1640531535 = 0x9E3779B1, -1059061760 = 0xC0E00000, 1065353216 = 0x3F800000.
// Checked with `ptxas -arch=sm_75` of CUDA 13.0 (which no longer targets sm_52 itself).
#include "sources/cuda/cuda_kernels.hpp"

namespace peergate::sources::cuda {

const char* const kProbePtx = R"PTX(
.version 7.0
.target sm_52
.address_size 64

.visible .entry peergate_fill_pattern(
    .param .u64 p_data,
    .param .u64 p_count,
    .param .u32 p_seed)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;

    ld.param.u64 %rd1, [p_data];
    ld.param.u64 %rd2, [p_count];
    ld.param.u32 %r1, [p_seed];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mov.u32 %r5, %nctaid.x;
    mul.wide.u32 %rd3, %r2, %r3;
    cvt.u64.u32 %rd4, %r4;
    add.u64 %rd3, %rd3, %rd4;
    mul.wide.u32 %rd5, %r5, %r3;
FILL_LOOP:
    setp.ge.u64 %p1, %rd3, %rd2;
    @%p1 bra FILL_DONE;
    cvt.u32.u64 %r6, %rd3;
    mad.lo.s32 %r7, %r6, -1640531535, %r1;
    setp.eq.s32 %p2, %r7, -1059061760;
    selp.b32 %r7, 1065353216, %r7, %p2;
    shl.b64 %rd6, %rd3, 2;
    add.u64 %rd7, %rd1, %rd6;
    st.global.u32 [%rd7], %r7;
    add.u64 %rd3, %rd3, %rd5;
    bra.uni FILL_LOOP;
FILL_DONE:
    ret;
}

.visible .entry peergate_verify_pattern(
    .param .u64 p_data,
    .param .u64 p_count,
    .param .u32 p_seed,
    .param .u64 p_result)
{
    .reg .pred %p<5>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;

    ld.param.u64 %rd1, [p_data];
    ld.param.u64 %rd2, [p_count];
    ld.param.u32 %r1, [p_seed];
    ld.param.u64 %rd8, [p_result];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd8, %rd8;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mov.u32 %r5, %nctaid.x;
    mul.wide.u32 %rd3, %r2, %r3;
    cvt.u64.u32 %rd4, %r4;
    add.u64 %rd3, %rd3, %rd4;
    mul.wide.u32 %rd5, %r5, %r3;
VERIFY_LOOP:
    setp.ge.u64 %p1, %rd3, %rd2;
    @%p1 bra VERIFY_DONE;
    cvt.u32.u64 %r6, %rd3;
    mad.lo.s32 %r7, %r6, -1640531535, %r1;
    setp.eq.s32 %p2, %r7, -1059061760;
    selp.b32 %r7, 1065353216, %r7, %p2;
    shl.b64 %rd6, %rd3, 2;
    add.u64 %rd7, %rd1, %rd6;
    ld.global.u32 %r9, [%rd7];
    setp.eq.s32 %p3, %r9, %r7;
    @%p3 bra VERIFY_NEXT;
    setp.eq.s32 %p4, %r9, -1059061760;
    selp.b64 %rd9, 0, 4, %p4;
    add.u64 %rd10, %rd8, %rd9;
    atom.global.add.u32 %r10, [%rd10], 1;
    atom.global.min.u32 %r11, [%rd8+8], %r6;
VERIFY_NEXT:
    add.u64 %rd3, %rd3, %rd5;
    bra.uni VERIFY_LOOP;
VERIFY_DONE:
    ret;
}
)PTX";

}  // namespace peergate::sources::cuda
