// The broadphase adapter against brute-force box overlap on random boxes.
#include <gtest/gtest.h>

#include <random>

#include "collision/broadphase.h"

namespace impetus {
namespace {

TEST(Broadphase, PairsEqualBruteForceOverlapsSortedAndStaticStaticExcluded) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> pos(-5, 5), size(0.05, 1.0);
  const int n = 300;
  std::vector<Aabb> boxes(n);
  std::vector<bool> is_static(n);
  Broadphase bp;
  for (int i = 0; i < n; ++i) {
    Vec3 c(pos(rng), pos(rng), pos(rng));
    Vec3 h(size(rng), size(rng), size(rng));
    boxes[i] = Aabb{c - h, c + h};
    is_static[i] = (i % 4 == 0);
    bp.add(i, boxes[i], is_static[i]);
  }
  for (int round = 0; round < 3; ++round) {
    // Move the dynamic boxes; stale pairs from the previous round must disappear.
    for (int i = 0; i < n; ++i) {
      if (is_static[i]) continue;
      Vec3 shift(pos(rng) * 0.3, pos(rng) * 0.3, pos(rng) * 0.3);
      boxes[i] = Aabb{boxes[i].min + shift, boxes[i].max + shift};
      bp.update(i, boxes[i]);
    }
    std::vector<std::pair<int, int>> pairs;
    bp.compute_pairs(pairs);
    std::vector<std::pair<int, int>> expected;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (!(is_static[i] && is_static[j]) && boxes[i].overlaps(boxes[j])) expected.emplace_back(i, j);
    ASSERT_GT(expected.size(), 10u);
    EXPECT_EQ(pairs, expected) << "round " << round;
  }
}

}  // namespace
}  // namespace impetus
