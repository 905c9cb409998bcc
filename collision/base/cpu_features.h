#pragma once
// Which instruction sets this CPU runs, asked once per process: the default build targets
// plain x86-64 (SSE2) so that it runs anywhere, and the few kernels written for wider
// registers (cloth/block3_avx2.h) are chosen at run time. Their results are bit-identical to
// the scalar kernels' (same operations in the same order, no FMA), so the choice changes only
// the time a step takes, never its result.

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// Compiles a function for AVX2 whatever the build's target; call it only where cpu_has_avx2().
/// Default-target inline code it calls is compiled into it for AVX2 as well.
#define IMPETUS_TARGET_AVX2 __attribute__((target("avx2")))
#define IMPETUS_HAVE_TARGET_AVX2 1
#endif

namespace impetus {

/// Whether AVX2 kernels may run: the CPU has AVX2 and IMPETUS_NO_AVX2 is not set to a value
/// other than "0" in the environment (the switch lets tests and users compare both paths).
/// Read once, at the first call; always false off x86-64.
bool cpu_has_avx2();

}  // namespace impetus
