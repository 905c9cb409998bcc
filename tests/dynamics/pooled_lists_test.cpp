// PooledLists (dynamics/pooled_lists.h) against a vector per list: the same values in the same
// order after random pushes, filters and pushes made while another list is walked, and a second
// use no bigger than the first needs no more pool.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "dynamics/pooled_lists.h"

namespace impetus {
namespace {

std::vector<int> values(const PooledLists& lists, int list) {
  std::vector<int> out;
  lists.for_each(list, [&](int v) { out.push_back(v); });
  return out;
}

// One use: random pushes, then filters that drop values, with pushes into later lists made
// while the filtered list is walked (as the symbolic elimination's fill-in does).
void exercise(PooledLists& lists, std::vector<std::vector<int>>& reference, std::mt19937& rng) {
  const int n = static_cast<int>(reference.size());
  std::uniform_int_distribution<int> pick(0, n - 1), value(0, 99), count(0, 40);
  lists.reset(n);
  for (auto& r : reference) r.clear();
  for (int i = 0; i < 20 * n; ++i) {
    const int l = pick(rng), v = value(rng);
    lists.push(l, v);
    reference[l].push_back(v);
  }
  for (int l = 0; l < n; ++l) {
    const int limit = value(rng);
    const int kept = lists.filter(l, [&](int v) { return v < limit; });
    std::vector<int> expected;
    for (int v : reference[l])
      if (v < limit) expected.push_back(v);
    reference[l] = expected;
    ASSERT_EQ(kept, static_cast<int>(expected.size()));
    ASSERT_EQ(values(lists, l), expected) << "list " << l;
    if (l + 1 >= n) continue;
    const int target = l + 1 + pick(rng) % (n - l - 1);
    const int extra = count(rng);
    int walked = 0;
    lists.for_each(l, [&](int v) {
      if (walked++ < extra) {
        lists.push(target, v + 1000);
        reference[target].push_back(v + 1000);
      }
    });
  }
  for (int l = 0; l < n; ++l) ASSERT_EQ(values(lists, l), reference[l]) << "list " << l;
}

TEST(PooledLists, HoldTheSameValuesAsAVectorPerList) {
  std::mt19937 rng(3);
  PooledLists lists;
  for (int n : {1, 7, 60}) {
    std::vector<std::vector<int>> reference(n);
    exercise(lists, reference, rng);
  }
}

TEST(PooledLists, FilterToNothingThenPushAgain) {
  PooledLists lists;
  lists.reset(2);
  for (int v = 0; v < 40; ++v) lists.push(0, v);
  EXPECT_EQ(lists.filter(0, [](int) { return false; }), 0);
  EXPECT_TRUE(values(lists, 0).empty());
  lists.push(0, 5);
  lists.push(0, 6);
  EXPECT_EQ(values(lists, 0), (std::vector<int>{5, 6}));
  EXPECT_TRUE(values(lists, 1).empty());
  EXPECT_EQ(lists.filter(1, [](int) { return true; }), 0);  // a list without chunks
}

TEST(PooledLists, ASecondUseNoBiggerThanTheFirstNeedsNoMorePool) {
  // The pool holds what one use needed, not the sum of every list's longest over all uses: the
  // same pushes spread over other lists reuse it.
  PooledLists lists;
  lists.reset(100);
  for (int v = 0; v < 1000; ++v) lists.push(v % 10, v);
  const std::size_t capacity = lists.chunk_capacity();
  for (int use = 1; use < 10; ++use) {
    lists.reset(100);
    for (int v = 0; v < 1000; ++v) lists.push(10 * use + v % 10, v);
    EXPECT_EQ(lists.chunk_capacity(), capacity) << use;
  }
}

}  // namespace
}  // namespace impetus
