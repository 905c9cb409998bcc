#pragma once
// Deterministic parallel loops: each index writes only its own output slot, so results do not
// depend on the number of threads. Never reduce floating-point values inside the loop.
//
// Every parallel region ends in a barrier, and on a loaded machine a barrier can wait a whole
// scheduler time slice for a descheduled worker while the others spin: with the block solver's
// islands solved in parallel, pile_boxes_1k took 27 ms/step at 2 threads against 8 at 1 on the
// 2-core machine while two compilers ran. So, like libgomp's OMP_DYNAMIC, a region uses no
// more threads than there are idle cores (online cores − load average + the calling thread).
// The thread count never affects results.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <limits>
#include <omp.h>
#include <stdlib.h>

#include <thread>

namespace impetus {

/// Idle cores plus the calling thread, as last measured by refresh_idle_cores(); 0 = not
/// measured or not limited. Reading the load average is a system call (open, read and close of
/// /proc/loadavg), so the world measures it once per step, not in every parallel loop.
inline std::atomic<int>& idle_cores_snapshot() {
  static std::atomic<int> cores{0};
  return cores;
}

/// Measures the load (World::step calls this once per step; so may a program that runs
/// parallel loops without a world). The kernel recomputes the load average every 5 s, so it is
/// read again only when a second has passed since the last read: each read is a system call
/// triplet (open, read and close of /proc/loadavg), and so was std::thread::hardware_concurrency
/// (glibc reads /sys/devices/system/cpu/online), together about 6 µs — at 2 threads
/// stack_boxes_10's settled steps took 8 µs instead of 2. With IMPETUS_IGNORE_LOAD set in the
/// environment the load is not looked at (tests that compare thread counts must run the
/// parallel path even on a busy machine).
inline void refresh_idle_cores() {
  if (getenv("IMPETUS_IGNORE_LOAD") != nullptr) {  // no system call: the environment is memory
    idle_cores_snapshot().store(0, std::memory_order_relaxed);
    return;
  }
  static const int cores = static_cast<int>(std::thread::hardware_concurrency());
  static std::atomic<long long> last_read_ns{std::numeric_limits<long long>::min()};
  const long long now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::steady_clock::now().time_since_epoch()).count();
  constexpr long long kReadEveryNs = 1'000'000'000;
  const long long last = last_read_ns.load(std::memory_order_relaxed);
  if (last != std::numeric_limits<long long>::min() && now - last < kReadEveryNs) return;
  last_read_ns.store(now, std::memory_order_relaxed);
  int usable = 0;
  double load = 0;
  if (cores > 0 && getloadavg(&load, 1) == 1) {
    const double room = static_cast<double>(cores) - load + 1.0;
    usable = room < 1.0 ? 1 : static_cast<int>(room);
  }
  idle_cores_snapshot().store(usable, std::memory_order_relaxed);
}

/// Threads worth using now for a request of `threads` (0 = all cores): at most the idle cores
/// plus the calling thread at the last refresh_idle_cores(), at least 1.
inline int usable_threads(int threads) {
  int t = threads > 0 ? threads : omp_get_max_threads();
  if (t <= 1) return 1;
  const int usable = idle_cores_snapshot().load(std::memory_order_relaxed);
  if (usable > 0 && usable < t) t = usable;
  return t;
}

/// Loops shorter than this run serially: waking a thread team costs more than they do (and on
/// a loaded machine much more). The result is the same either way.
inline constexpr std::ptrdiff_t kMinParallel = 32;
/// The same for loops of well under a microsecond per index (per-body integration, swept
/// boxes): a parallel region cost about 5 µs on the 2-core VM, and three such loops over
/// capsule_chain_50's 51 bodies made its step 16 µs slower at 2 threads than at 1.
inline constexpr std::ptrdiff_t kMinParallelCheap = 256;

/// Threads for a loop of n indices: 1 below `min_parallel` indices, else usable_threads().
inline int loop_threads(std::ptrdiff_t n, int threads, std::ptrdiff_t min_parallel) {
  return threads == 1 || n < min_parallel ? 1 : usable_threads(threads);
}

/// Run body(i) for i in [0, n) on up to `threads` OpenMP threads (0 = all cores), handing out
/// `chunk` indices at a time (1 for items of very unequal cost, such as islands; 0, the
/// default: about eight chunks per thread, at least 16 indices each); serially below
/// `min_parallel` indices.
template <class Body>
void parallel_for(std::ptrdiff_t n, int threads, Body&& body, int chunk = 0,
                  std::ptrdiff_t min_parallel = kMinParallel) {
  const int t = loop_threads(n, threads, min_parallel);
  if (t == 1) {
    for (std::ptrdiff_t i = 0; i < n; ++i) body(i);
    return;
  }
  // Every chunk handed out is an atomic operation on a counter both threads contend for: with
  // chunks of 16, a 2,800-block loop paid 175 of them, and a pile's step runs a dozen such loops.
  if (chunk <= 0) chunk = static_cast<int>(std::max<std::ptrdiff_t>(16, n / (8 * t)));
#pragma omp parallel for schedule(dynamic, chunk) num_threads(t)
  for (std::ptrdiff_t i = 0; i < n; ++i) body(i);
}

/// parallel_for for loops of even cost per index over data that the previous such loop over
/// the same range touched: each thread takes one contiguous range, the same one every time, so
/// what a thread wrote stays in its core's cache for the next loop. On the 2-core VM a dynamic
/// schedule handed each thread half of its blocks fresh from the other core (a block solve's
/// per-block loops scaled 1.15–1.5× at 2 threads).
template <class Body>
void parallel_for_static(std::ptrdiff_t n, int threads, Body&& body) {
  const int t = loop_threads(n, threads, kMinParallel);
  if (t == 1) {
    for (std::ptrdiff_t i = 0; i < n; ++i) body(i);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(t)
  for (std::ptrdiff_t i = 0; i < n; ++i) body(i);
}

/// Run body(begin, end) once per thread (up to `threads`) over contiguous, equal, consecutive
/// parts of [0, n); one part [0, n) below kMinParallel indices. For loops that carry something
/// from one index to the next within a part (a search cursor); the indices must still write
/// only their own slots, so the parts, which depend on the thread count, move no result.
template <class Body>
void parallel_for_ranges(std::ptrdiff_t n, int threads, Body&& body) {
  const int t = loop_threads(n, threads, kMinParallel);
  if (t == 1) {
    body(std::ptrdiff_t{0}, n);
    return;
  }
#pragma omp parallel num_threads(t)
  {
    const std::ptrdiff_t part = omp_get_thread_num(), parts = omp_get_num_threads();
    body(n * part / parts, n * (part + 1) / parts);
  }
}

/// A team of threads that shares out the work of one parallel region (run_team): OpenMP's
/// work-sharing constructs as calls, so that the same code runs serially on a SerialTeam.
/// (Orphaned constructs would not do there: inside a caller's parallel region, an island
/// solved on one thread among others, they bind to the caller's team and wait for it.)
struct SerialTeam {
  int thread() const { return 0; }
  int size() const { return 1; }
  template <class F>
  void single(F&& f) { f(); }
  void barrier() {}
  /// f(i) for i in [begin, end): each thread one contiguous range (schedule static).
  template <class F>
  void for_static(std::ptrdiff_t begin, std::ptrdiff_t end, F&& f) {
    for (std::ptrdiff_t i = begin; i < end; ++i) f(i);
  }
  /// f(i) for i in [0, n): index i to thread i mod size (schedule static, 1).
  template <class F>
  void for_cyclic(std::ptrdiff_t n, F&& f) {
    for (std::ptrdiff_t i = 0; i < n; ++i) f(i);
  }
  /// f(i) for i in [0, n), one index at a time to whichever thread is free.
  template <class F>
  void for_dynamic(std::ptrdiff_t n, F&& f) {
    for (std::ptrdiff_t i = 0; i < n; ++i) f(i);
  }
};

/// The team of the innermost OpenMP parallel region. Every call ends in a barrier, except
/// thread() and size(); every thread of the team must make the same calls.
struct OmpTeam {
  int thread() const { return omp_get_thread_num(); }
  int size() const { return omp_get_num_threads(); }
  template <class F>
  void single(F&& f) {
#pragma omp single
    f();
  }
  void barrier() {
#pragma omp barrier
  }
  template <class F>
  void for_static(std::ptrdiff_t begin, std::ptrdiff_t end, F&& f) {
#pragma omp for schedule(static)
    for (std::ptrdiff_t i = begin; i < end; ++i) f(i);
  }
  template <class F>
  void for_cyclic(std::ptrdiff_t n, F&& f) {
#pragma omp for schedule(static, 1)
    for (std::ptrdiff_t i = 0; i < n; ++i) f(i);
  }
  template <class F>
  void for_dynamic(std::ptrdiff_t n, F&& f) {
#pragma omp for schedule(dynamic, 1)
    for (std::ptrdiff_t i = 0; i < n; ++i) f(i);
  }
};

/// Runs work(team) on a team of `threads` threads: one parallel region (whose entry costs
/// about a microsecond more than a barrier), or none for one thread. The runtime may grant
/// fewer threads than asked for: work must share out by team.size(), not by `threads`.
template <class Work>
void run_team(int threads, Work&& work) {
  if (threads <= 1) {
    SerialTeam team;
    work(team);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    OmpTeam team;
    work(team);
  }
}

/// Runs first() and second() at the same time on two threads when `threads` allows two (0 =
/// all cores), else one after the other. They must not write anything the other reads or
/// writes: the results are then the same either way.
template <class First, class Second>
void parallel_invoke(int threads, First&& first, Second&& second) {
  run_team(usable_threads(threads) < 2 ? 1 : 2, [&](auto& team) {
    // The runtime may grant one thread (inside another parallel region): it then runs both.
    if (team.thread() == 0) {
      first();
      if (team.size() < 2) second();
    } else if (team.thread() == 1) {
      second();
    }
  });
}

/// max(0, f(i)) over i in [begin, end). A maximum is the same in any order, so ranges of 1,024
/// and more are reduced in parallel; shorter ones run serially, without a parallel region
/// (entering one costs about a microsecond).
template <class F>
double parallel_max(std::ptrdiff_t begin, std::ptrdiff_t end, int threads, F&& f) {
  double worst = 0;
  const int t = loop_threads(end - begin, threads, 1024);
  if (t == 1) {
    for (std::ptrdiff_t i = begin; i < end; ++i) worst = std::max(worst, f(i));
    return worst;
  }
#pragma omp parallel for reduction(max : worst) num_threads(t) schedule(static)
  for (std::ptrdiff_t i = begin; i < end; ++i) worst = std::max(worst, f(i));
  return worst;
}

}  // namespace impetus
