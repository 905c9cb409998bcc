#pragma once
// Deterministic parallel loops for the cloth module. Work is cut into fixed chunks of
// kChunkSize indices (never derived from the thread count); each chunk writes only its own
// slots, and per-chunk partial sums are added in chunk order afterwards, so results are the
// same bits for any number of threads, serial runs included. Loops shorter than
// kMinParallelItems run serially: an OpenMP region costs microseconds, more than a short loop.
#include <cstddef>
#include <omp.h>

namespace impetus {

inline constexpr std::ptrdiff_t kChunkSize = 256;
inline constexpr std::ptrdiff_t kMinParallelItems = 512;

/// body(chunk, begin, end) for the chunks of [0, n).
template <class Body>
void for_each_chunk(std::ptrdiff_t n, int threads, Body&& body) {
  const std::ptrdiff_t chunks = (n + kChunkSize - 1) / kChunkSize;
  if (threads == 1 || n < kMinParallelItems || chunks < 2) {
    for (std::ptrdiff_t c = 0; c < chunks; ++c) {
      const std::ptrdiff_t begin = c * kChunkSize;
      body(c, begin, begin + kChunkSize < n ? begin + kChunkSize : n);
    }
    return;
  }
  const int t = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(t)
  for (std::ptrdiff_t c = 0; c < chunks; ++c) {
    const std::ptrdiff_t begin = c * kChunkSize;
    body(c, begin, begin + kChunkSize < n ? begin + kChunkSize : n);
  }
}

/// body(i) for i in [0, n).
template <class Body>
void cloth_parallel_for(std::ptrdiff_t n, int threads, Body&& body) {
  for_each_chunk(n, threads, [&](std::ptrdiff_t, std::ptrdiff_t begin, std::ptrdiff_t end) {
    for (std::ptrdiff_t i = begin; i < end; ++i) body(i);
  });
}

/// Number of chunks of a loop of n indices (size of a partial-sum array).
inline std::ptrdiff_t chunk_count(std::ptrdiff_t n) { return (n + kChunkSize - 1) / kChunkSize; }

}  // namespace impetus
