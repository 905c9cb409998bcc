#pragma once
// Deterministic parallel loops: each index writes only its own output slot, so results do not
// depend on the number of threads. Static scheduling over indices; never reduce floating-point
// values inside the loop.
#include <cstddef>
#include <omp.h>

namespace impetus {

/// Run body(i) for i in [0, n) on up to `threads` OpenMP threads (0 = all cores).
template <class Body>
void parallel_for(std::ptrdiff_t n, int threads, Body&& body) {
  // Small loops run serially: waking a thread team costs more than they do (and on a loaded
  // machine much more). The result is the same either way.
  constexpr std::ptrdiff_t kMinParallel = 32;
  if (threads == 1 || n < kMinParallel) {
    for (std::ptrdiff_t i = 0; i < n; ++i) body(i);
    return;
  }
  int t = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 16) num_threads(t)
  for (std::ptrdiff_t i = 0; i < n; ++i) body(i);
}

}  // namespace impetus
