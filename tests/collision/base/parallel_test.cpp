// The thread gate of collision/base/parallel.h: how many threads a parallel loop may use.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <array>
#include <atomic>
#include <vector>

#include <omp.h>

#include "collision/base/parallel.h"

namespace impetus {
namespace {

TEST(ParallelGate, IgnoreLoadTakesEffectAtTheNextRefresh) {
  // A busy machine's verdict (one usable thread) must not outlive IMPETUS_IGNORE_LOAD, even
  // though the load average itself is read at most once a second.
  idle_cores_snapshot().store(1);
  EXPECT_EQ(usable_threads(2), 1);
  setenv("IMPETUS_IGNORE_LOAD", "1", 1);
  refresh_idle_cores();
  EXPECT_EQ(usable_threads(2), 2);
  EXPECT_EQ(usable_threads(1), 1);
  unsetenv("IMPETUS_IGNORE_LOAD");
}

TEST(ParallelGate, RefreshWithinASecondKeepsTheLastVerdict) {
  // Without the override, a refresh right after another does not measure again: a verdict
  // stored in between survives it.
  unsetenv("IMPETUS_IGNORE_LOAD");
  refresh_idle_cores();  // measures (or keeps a measurement of less than a second ago)
  idle_cores_snapshot().store(1);
  refresh_idle_cores();
  EXPECT_EQ(usable_threads(4), 1);
}

TEST(ParallelGate, ParallelForVisitsEveryIndexOnce) {
  setenv("IMPETUS_IGNORE_LOAD", "1", 1);
  refresh_idle_cores();
  std::vector<int> seen(1000, 0);
  parallel_for(static_cast<std::ptrdiff_t>(seen.size()), 2, [&](std::ptrdiff_t i) { seen[i] += 1; }, 1);
  for (int count : seen) EXPECT_EQ(count, 1);
  unsetenv("IMPETUS_IGNORE_LOAD");
}

TEST(ParallelGate, ParallelForRangesCoversEveryIndexOnceInConsecutiveParts) {
  // build_contacts walks a cursor through each part: a part must be consecutive indices, and
  // the parts together every index once, for any thread count and length (short ones serial).
  setenv("IMPETUS_IGNORE_LOAD", "1", 1);
  refresh_idle_cores();
  for (const std::ptrdiff_t n : {0, 1, 31, 32, 33, 1000, 1001}) {
    for (const int threads : {1, 2, 3}) {
      std::vector<int> seen(static_cast<std::size_t>(n), 0);
      std::vector<int> part_of(static_cast<std::size_t>(n), -1);
      std::atomic<int> parts{0};
      parallel_for_ranges(n, threads, [&](std::ptrdiff_t first, std::ptrdiff_t last) {
        const int part = parts.fetch_add(1);
        for (std::ptrdiff_t i = first; i < last; ++i) {
          seen[i] += 1;
          part_of[i] = part;
        }
      });
      for (std::ptrdiff_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "n " << n << " threads " << threads << " index " << i;
      // Consecutive: a part, once left, is never met again.
      std::vector<char> closed(static_cast<std::size_t>(parts.load()), 0);
      for (std::ptrdiff_t i = 1; i < n; ++i) {
        if (part_of[i] == part_of[i - 1]) continue;
        closed[part_of[i - 1]] = 1;
        EXPECT_FALSE(closed[part_of[i]]) << "n " << n << " threads " << threads << " index " << i;
      }
      if (n < kMinParallel) EXPECT_LE(parts.load(), 1) << "n " << n;
    }
  }
  unsetenv("IMPETUS_IGNORE_LOAD");
}

// Every index of each work-sharing call visited once, by whichever team runs it: sums of the
// indices, checked against the closed form n(n − 1)/2.
// (`per_thread` and `sums` are shared by the team.)
template <class Team>
void shared_out_sums(Team& team, std::vector<long long>& per_thread, std::array<long long, 3>& sums) {
  constexpr std::ptrdiff_t n = 1000;
  auto add = [&](std::ptrdiff_t i) { per_thread[team.thread()] += i; };
  for (int which = 0; which < 3; ++which) {
    per_thread[team.thread()] = 0;
    team.barrier();
    if (which == 0) team.for_static(0, n, add);
    if (which == 1) team.for_cyclic(n, add);
    if (which == 2) team.for_dynamic(n, add);
    team.single([&] {
      sums[which] = 0;
      for (int j = 0; j < team.size(); ++j) sums[which] += per_thread[j];
    });
  }
}

TEST(ParallelTeam, SharesOutEveryIndexOnceAlsoInsideACallersParallelRegion) {
  // run_team with one thread inside a region of the caller's (an island solved on one thread
  // beside others) must not bind work-sharing to the caller's team: with OpenMP's orphaned
  // constructs it waited there for threads that never came.
  setenv("IMPETUS_IGNORE_LOAD", "1", 1);
  refresh_idle_cores();
  const long long expected = 1000LL * 999 / 2;
  for (int threads : {1, 2, 3}) {
    std::vector<long long> per_thread(threads, 0);
    std::array<long long, 3> sums{};
    run_team(threads, [&](auto& team) { shared_out_sums(team, per_thread, sums); });
    for (long long sum : sums) EXPECT_EQ(sum, expected) << threads << " threads";
  }
  std::vector<std::array<long long, 3>> inner(2);
#pragma omp parallel num_threads(2)
  {
    const int me = omp_get_thread_num();
    for (int threads : {1, 2}) {  // 2: a nested region, which the runtime gives one thread
      std::vector<long long> per_thread(threads, 0);
      run_team(threads, [&](auto& team) { shared_out_sums(team, per_thread, inner[me]); });
      for (long long sum : inner[me]) EXPECT_EQ(sum, expected);
    }
  }
  unsetenv("IMPETUS_IGNORE_LOAD");
}

TEST(ParallelTeam, InvokeRunsBothTasksOnceAtAnyThreadCount) {
  setenv("IMPETUS_IGNORE_LOAD", "1", 1);
  refresh_idle_cores();
  for (int threads : {1, 2, 4}) {
    int first = 0, second = 0;
    parallel_invoke(threads, [&] { ++first; }, [&] { ++second; });
    EXPECT_EQ(first, 1) << threads;
    EXPECT_EQ(second, 1) << threads;
  }
#pragma omp parallel num_threads(2)
  {
    int first = 0, second = 0;  // nested: a team of one runs both
    parallel_invoke(2, [&] { ++first; }, [&] { ++second; });
    EXPECT_EQ(first + second, 2);
  }
  unsetenv("IMPETUS_IGNORE_LOAD");
}

}  // namespace
}  // namespace impetus
