#pragma once
// AVX2 forms of block3.h's kernels, for the PCG's system product (implicit_solver.cpp), the
// cloth step's costliest loop. A 3-vector sits in the low three lanes of one 256-bit register,
// so a block product is three multiplies and two adds instead of block3::Acc's nine and six.
// On the 64 × 64 hang at one thread the solve phase takes 3.64 ms/step against the scalar
// kernel's 4.07 (medians of 3 alternating runs; the step 8.85 against 9.35). The incomplete
// factorisation's triangular solves gained nothing from them: each row waits on the row before,
// a chain of latencies that wider registers do not shorten.
//
// Bit-identical to block3.h: each lane sums the same products in the same order as the scalar
// code (m[row]·v0 + m[3 + row]·v1, then + m[6 + row]·v2, then added to the running sum), with
// no FMA (the target is "avx2" alone, and -ffp-contract=off holds anyway). The fourth lane is
// never stored. Callers choose these only where cpu_has_avx2() (collision/base/cpu_features.h);
// the functions carry their own target attribute, so the rest of the build stays SSE2.
#include "collision/base/cpu_features.h"

#ifdef IMPETUS_HAVE_TARGET_AVX2
#include <immintrin.h>

namespace impetus::block3::avx2 {

/// Lanes 0–2 from p[0..2], lane 3 zero; reads nothing past p[2]. A pair and a scalar, not a
/// masked load, which is slower to issue and does not take a forwarded store.
IMPETUS_TARGET_AVX2 inline __m256d load3(const double* p) {
  return _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p)), _mm_load_sd(p + 2), 1);
}

/// Writes lanes 0–2 to p[0..2]. As a pair and a scalar, not a masked store: a load of what was
/// just written waits for a masked store to retire (no store-to-load forwarding), and the PCG
/// reads each product straight back for its dot product (24% of the pass stalled on it).
IMPETUS_TARGET_AVX2 inline void store3(double* p, __m256d v) {
  _mm_storeu_pd(p, _mm256_castpd256_pd128(v));
  _mm_store_sd(p + 2, _mm256_extractf128_pd(v, 1));
}

/// M v for M in column-major storage (m[3·col + row]), v = (v[0], v[1], v[2]).
IMPETUS_TARGET_AVX2 inline __m256d product(const double* m, const double* v) {
  const __m256d c0 = _mm256_loadu_pd(m);      // m0 m1 m2 (m3)
  const __m256d c1 = _mm256_loadu_pd(m + 3);  // m3 m4 m5 (m6)
  const __m256d c2 = load3(m + 6);            // m6 m7 m8 (0): the block's end
  const __m256d s = _mm256_add_pd(_mm256_mul_pd(c0, _mm256_broadcast_sd(v)),
                                  _mm256_mul_pd(c1, _mm256_broadcast_sd(v + 1)));
  return _mm256_add_pd(s, _mm256_mul_pd(c2, _mm256_broadcast_sd(v + 2)));
}

}  // namespace impetus::block3::avx2

#endif
