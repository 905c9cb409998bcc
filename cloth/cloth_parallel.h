#pragma once
// Deterministic parallel loops for the cloth module. Work is cut into fixed chunks of
// kChunkSize indices (never derived from the thread count); each chunk writes only its own
// slots, and per-chunk partial sums are added in chunk order afterwards, so results are the
// same bits for any number of threads, serial runs included.
//
// Every parallel region ends in a barrier, and on a loaded machine a barrier can wait a whole
// scheduler time slice (milliseconds) for a descheduled worker while the spinning ones burn
// CPU: on a 2-core machine under load 14 the 64×64 hang went from 58 ms/step at 1 thread to
// ~1190 ms at 2 when the PCG opened a few regions per iteration. So regions are only opened
// for loops with enough work to pay for that (kMinParallelItems expensive items, e.g. element
// Jacobians, a vertex's contact tests or CCD pairs; 1,024 of them take ~0.1 ms or more, a
// region ~5 µs: at 4,096, every per-vertex loop of the 2,401-vertex drape ran serially);
// cheap per-vertex loops run serially (cloth_serial_for), and the PCG on a team of its own
// (implicit_solver.cpp).
// And, like libgomp's OMP_DYNAMIC, a region uses no more threads than there are idle cores
// (online cores − load average + our own thread): on a saturated machine extra threads cannot
// run at the same time, they only add barrier waits. The thread count never affects results.
#include <cstddef>
#include <omp.h>

#include <atomic>

#include "collision/base/parallel.h"

namespace impetus {

inline constexpr std::ptrdiff_t kChunkSize = 256;
inline constexpr std::ptrdiff_t kMinParallelItems = 1024;

/// Run-time overrides, for tests that must exercise the parallel path on small cloths and on a
/// busy machine: load_gate false ignores the load average, min_items replaces kMinParallelItems.
struct ClothParallelTuning {
  std::atomic<bool> load_gate{true};
  std::atomic<std::ptrdiff_t> min_items{kMinParallelItems};
};
inline ClothParallelTuning& cloth_parallel_tuning() {
  static ClothParallelTuning tuning;
  return tuning;
}

/// Threads worth using now for a request of `threads` (0 = all cores): usable_threads()
/// (collision/base/parallel.h: at most the idle cores plus the calling thread), unless a test
/// turned the load gate off.
inline int cloth_usable_threads(int threads) {
  if (!cloth_parallel_tuning().load_gate.load(std::memory_order_relaxed)) {
    const int t = threads > 0 ? threads : omp_get_max_threads();
    return t < 1 ? 1 : t;
  }
  return usable_threads(threads);
}

/// Threads for work of n items that goes parallel from `min_items` (or fewer when a test
/// lowered the tuning's min_items): 1 below that, else cloth_usable_threads(threads).
inline int cloth_threads_for(std::ptrdiff_t n, int threads, std::ptrdiff_t min_items) {
  const std::ptrdiff_t tuned = cloth_parallel_tuning().min_items.load(std::memory_order_relaxed);
  if (threads == 1 || n < (tuned < min_items ? tuned : min_items)) return 1;
  return cloth_usable_threads(threads);
}

/// body(chunk, begin, end) for the chunks of [0, n); in parallel from `min_items` indices
/// (cloth_threads_for).
template <class Body>
void for_each_chunk_from(std::ptrdiff_t min_items, std::ptrdiff_t n, int threads, Body&& body) {
  const std::ptrdiff_t chunks = (n + kChunkSize - 1) / kChunkSize;
  const int t = chunks < 2 ? 1 : cloth_threads_for(n, threads, min_items);
  if (t == 1) {
    for (std::ptrdiff_t c = 0; c < chunks; ++c) {
      const std::ptrdiff_t begin = c * kChunkSize;
      body(c, begin, begin + kChunkSize < n ? begin + kChunkSize : n);
    }
    return;
  }
#pragma omp parallel for schedule(static) num_threads(t)
  for (std::ptrdiff_t c = 0; c < chunks; ++c) {
    const std::ptrdiff_t begin = c * kChunkSize;
    body(c, begin, begin + kChunkSize < n ? begin + kChunkSize : n);
  }
}

/// body(chunk, begin, end) for the chunks of [0, n), in parallel from kMinParallelItems.
template <class Body>
void for_each_chunk(std::ptrdiff_t n, int threads, Body&& body) {
  for_each_chunk_from(kMinParallelItems, n, threads, body);
}

/// body(i) for i in [0, n).
template <class Body>
void cloth_parallel_for(std::ptrdiff_t n, int threads, Body&& body) {
  for_each_chunk(n, threads, [&](std::ptrdiff_t, std::ptrdiff_t begin, std::ptrdiff_t end) {
    for (std::ptrdiff_t i = begin; i < end; ++i) body(i);
  });
}

/// body(i) for i in [0, n), in parallel from `min_items` indices (see for_each_chunk_from).
template <class Body>
void cloth_parallel_for_from(std::ptrdiff_t min_items, std::ptrdiff_t n, int threads, Body&& body) {
  for_each_chunk_from(min_items, n, threads, [&](std::ptrdiff_t, std::ptrdiff_t begin, std::ptrdiff_t end) {
    for (std::ptrdiff_t i = begin; i < end; ++i) body(i);
  });
}

/// body(i) for i in [0, n) when the cost per index varies along the range (candidate pairs:
/// most fail a box test, those that pass cluster): chunks go to whichever thread is free, not a
/// contiguous half of them to each thread.
template <class Body>
void cloth_parallel_for_uneven(std::ptrdiff_t n, int threads, Body&& body) {
  const std::ptrdiff_t chunks = (n + kChunkSize - 1) / kChunkSize;
  const int t = chunks < 2 ? 1 : cloth_threads_for(n, threads, kMinParallelItems);
  if (t == 1) {
    for (std::ptrdiff_t i = 0; i < n; ++i) body(i);
    return;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(t)
  for (std::ptrdiff_t c = 0; c < chunks; ++c) {
    const std::ptrdiff_t end = (c + 1) * kChunkSize < n ? (c + 1) * kChunkSize : n;
    for (std::ptrdiff_t i = c * kChunkSize; i < end; ++i) body(i);
  }
}

/// body(i) for i in [0, n), always on the calling thread (cheap loops: a parallel region would
/// cost more than the loop).
template <class Body>
void cloth_serial_for(std::ptrdiff_t n, Body&& body) {
  for (std::ptrdiff_t i = 0; i < n; ++i) body(i);
}

/// Number of chunks of a loop of n indices (size of a partial-sum array).
inline std::ptrdiff_t chunk_count(std::ptrdiff_t n) { return (n + kChunkSize - 1) / kChunkSize; }

}  // namespace impetus
