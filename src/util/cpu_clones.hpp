// SPDX-License-Identifier: Apache-2.0
// Functions whose inner loops count bits (the placement searches keep GPU sets as 64-bit
// masks): compiled twice, with and without the POPCNT instruction, and the CPU picks at
// load time. Without it GCC calls a library routine for every count, which took a quarter
// of the search time. x86-64 with GCC or Clang; elsewhere a plain function.
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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(PEERGATE_NO_CPU_CLONES)
#define PEERGATE_WITH_POPCNT __attribute__((target_clones("popcnt", "default")))
#else
#define PEERGATE_WITH_POPCNT
#endif
