// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/xid_catalogue.hpp"

#include <algorithm>
#include <array>

namespace peergate::policy::doctor {

namespace {

using model::Severity;

// By number, ascending (the test checks it).
constexpr std::array<XidMeaning, 44> kXids{{
    {13,
     Severity::warning,
     "graphics engine exception (often an application fault)",
     "Check the application; repeated Xid 13 across jobs points at hardware."},
    {31,
     Severity::warning,
     "GPU memory page fault (an access to an unmapped address; seen when peer mappings break)",
     "If it coincides with P2P use, keep GGML_CUDA_P2P unset and run 'peergate probe'."},
    {43,
     Severity::warning,
     "GPU stopped processing",
     "Restart the job; repeated Xid 43 needs a GPU reset."},
    {45,
     Severity::warning,
     "preemptive cleanup after earlier errors (the driver tore down a channel: an abort, a reset, "
     "or another Xid such as 48, 94 or 95)",
     "Look for the Xid that came before it; alone, it is an application that was stopped."},
    {48,
     Severity::error,
     "double-bit ECC error",
     "Drain the node and reset the GPU; replace it if it recurs."},
    {61,
     Severity::error,
     "internal micro-controller breakpoint/warning",
     "Reset the GPU; update the driver if it recurs."},
    {62,
     Severity::error,
     "internal micro-controller halt",
     "Reset the GPU; update the driver if it recurs."},
    {63,
     Severity::warning,
     "ECC page retirement or row remapping recorded (memory health, not the interconnect)",
     "Reset the GPU to activate the remapping when convenient."},
    {64,
     Severity::error,
     "ECC page retirement or row remapping failed",
     "Drain the node; the GPU needs service."},
    {68,
     Severity::warning,
     "NVDEC0 (video decoder) exception",
     "Restart the application; contact support if it recurs."},
    {69,
     Severity::warning,
     "graphics engine class error (often an application fault)",
     "Check the application and its CUDA version; restart it."},
    {74,
     Severity::error,
     "NVLink error",
     "NVLink traffic on this GPU is not trustworthy: reset the GPU, reseat bridges, check "
     "'nvidia-smi nvlink -e'."},
    {79,
     Severity::error,
     "GPU has fallen off the bus",
     "Check power, cooling, PCIe seating and riser cables; the GPU needs a reset or a reboot."},
    {92,
     Severity::warning,
     "high single-bit ECC error rate (corrected, but the memory is degrading)",
     "Watch 'nvidia-smi -q -d ECC'; plan a reset, and service if the rate keeps rising."},
    {94,
     Severity::warning,
     "contained error (a memory ECC error, or in the unit the line names, e.g. 'Contained: "
     "SM'): only the application that met it was stopped",
     "Restart that application; reset the GPU when idle."},
    {95,
     Severity::error,
     "uncontained error (memory or another unit): other applications on the GPU may have "
     "used bad data",
     "Drain the node and reset the GPU."},
    {109,
     Severity::error,
     "context switch timeout",
     "Reset the GPU; contact support if it recurs."},
    {119,
     Severity::error,
     "GSP RPC timeout (the GPU's system processor did not answer the driver)",
     "Reset the GPU, or power-cycle the node if it persists; update the driver."},
    {120,
     Severity::error,
     "GSP error (an error in code running on the GPU's system processor)",
     "Reset the GPU, or power-cycle the node if it persists; update the driver."},
    {121,
     Severity::info,
     "corrected errors on the C2C link to the Grace CPU",
     "No immediate action; reset the GPU at a service window to retrain the link."},
    {122,
     Severity::warning,
     "SPI PMU RPC read failure (listed as unused on Ampere and newer)",
     "Contact support if it recurs."},
    {123,
     Severity::warning,
     "SPI PMU RPC write failure (listed as unused on Ampere and newer)",
     "Contact support if it recurs."},
    {124,
     Severity::warning,
     "SPI PMU RPC erase failure (listed as unused on Ampere and newer)",
     "Contact support if it recurs."},
    {136,
     Severity::error,
     "link training failed",
     "Reset the GPU; investigate the link's signal integrity (seating, cables, risers)."},
    {137,
     Severity::warning,
     "NVLink privilege error: the remote MMU refused an illegal NVLink peer-to-peer access (often "
     "an application fault)",
     "Run the application under compute-sanitizer or cuda-gdb; report it if they find nothing."},
    {138,
     Severity::warning,
     "DLA error (listed as unused on these GPUs)",
     "Contact support if it recurs."},
    {139,
     Severity::warning,
     "OFA1 (optical flow) error",
     "Restart the application; contact support if it recurs."},
    {140,
     Severity::error,
     "uncorrectable ECC error the driver could not retire (page offlining or row remapping "
     "interrupted)",
     "Reset the GPU; contact the hardware vendor if it persists."},
    {141, Severity::warning, "CUDA fast path error", "Contact support if it recurs."},
    {142, Severity::warning, "NVENC3 (video encoder) error", "Contact support if it recurs."},
    {143,
     Severity::error,
     "GPU initialisation error",
     "Reset the GPU; contact support if it recurs."},
    {144,
     Severity::error,
     "NVLink SAW error",
     "Follow NVIDIA's NVLink5 workflow for the error status; reset the GPU where it says; check "
     "'nvidia-smi nvlink -e'."},
    {145,
     Severity::error,
     "NVLink RLW error",
     "Follow NVIDIA's NVLink5 workflow for the error status (and the Xid 154 beside it); check "
     "'nvidia-smi nvlink -e'."},
    {146,
     Severity::error,
     "NVLink TLW error",
     "Follow NVIDIA's NVLink5 workflow for the error status; check 'nvidia-smi nvlink -e'."},
    {147,
     Severity::error,
     "NVLink TREX error",
     "Follow NVIDIA's NVLink5 workflow for the error status; check 'nvidia-smi nvlink -e'."},
    {148,
     Severity::error,
     "NVLink NVLPW_CTRL error",
     "Follow NVIDIA's NVLink5 workflow for the error status; check 'nvidia-smi nvlink -e'."},
    {149,
     Severity::error,
     "NVLink NETIR error",
     "Follow NVIDIA's NVLink5 workflow for the error status; check 'nvidia-smi nvlink -e'."},
    {150,
     Severity::error,
     "NVLink MSE error",
     "Follow NVIDIA's NVLink5 workflow for the error status; check 'nvidia-smi nvlink -e'."},
    {151,
     Severity::warning,
     "key rotation error (confidential computing)",
     "Restart the VM; contact support if it recurs."},
    {152, Severity::warning, "DLA SMMU error", "Contact support if it recurs."},
    {153, Severity::warning, "DLA timeout", "Contact support if it recurs."},
    {154,
     Severity::info,
     "GPU recovery action changed: summarises what another Xid requires (None, Drain P2P, Drain "
     "and Reset, GPU Reset Required, Node Reboot Required)",
     "Do what the line names; 'Drain P2P' means no peer traffic on this GPU until it is reset."},
    {155,
     Severity::warning,
     "NVLink software-defined error: a link taken down on purpose (including a transition to "
     "sleep)",
     "Reset the GPU to bring the link back; find what took it down."},
    {156,
     Severity::warning,
     "resource retirement event (the GPU retired a faulty resource)",
     "Reset the GPU when convenient to complete the retirement."},
}};

}  // namespace

const XidMeaning* xid_meaning(int xid) {
    const auto* found = std::lower_bound(
        kXids.begin(), kXids.end(), xid, [](const XidMeaning& m, int n) { return m.xid < n; });
    return found != kXids.end() && found->xid == xid ? found : nullptr;
}

// Every entry, by number.
std::span<const XidMeaning> xid_catalogue() {
    return kXids;
}

}  // namespace peergate::policy::doctor
