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
  if (threads == 1 || n < 2) {
    for (std::ptrdiff_t i = 0; i < n; ++i) body(i);
    return;
  }
  int t = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 16) num_threads(t)
  for (std::ptrdiff_t i = 0; i < n; ++i) body(i);
}

}  // namespace impetus
