// The thread gate of collision/base/parallel.h: how many threads a parallel loop may use.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <vector>

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

}  // namespace
}  // namespace impetus
