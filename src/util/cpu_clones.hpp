// SPDX-License-Identifier: Apache-2.0
// Functions compiled twice, for a CPU feature and without it, the CPU picking at load
// time. PEERGATE_WITH_POPCNT: inner loops that count bits (the placement searches keep GPU
// sets as 64-bit masks); without POPCNT GCC calls a library routine for every count, which
// took a quarter of the search time. PEERGATE_WITH_AVX2: the probe's compare of the bytes
// it copied back, which vectorises. x86-64 with GCC; elsewhere plain functions.
//
// Not with Clang: Clang 14 wants the attribute on a clone's first declaration, and a call
// from another translation unit through such a declaration picked the wrong function
// (measured: a popcount of 7 returned 16). Its builds count bits the portable way.
#pragma once

// Not under ThreadSanitizer: the loader runs the clones' resolvers before the sanitizer's
// runtime is up, and the instrumented resolvers crash there (the tsan preset's binaries
// died before main).
#if defined(__SANITIZE_THREAD__)
#define PEERGATE_NO_CPU_CLONES 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PEERGATE_NO_CPU_CLONES 1
#endif
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(PEERGATE_NO_CPU_CLONES)
#define PEERGATE_WITH_POPCNT __attribute__((target_clones("popcnt", "default")))
#define PEERGATE_WITH_AVX2 __attribute__((target_clones("avx2", "default")))
#else
#define PEERGATE_WITH_POPCNT
#define PEERGATE_WITH_AVX2
#endif
