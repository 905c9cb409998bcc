// sort_warm_cache (engine/warm_start.cpp) orders the warm-start records by key, equal keys in
// their present order, with an insertion sort that hands over to std::sort past a budget of
// moves. Reference: std::stable_sort by key alone, which is that order by definition. Each
// record carries its input position in `normal`, so the test sees where every record went.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/world_impl.h"

namespace impetus {
namespace {

std::vector<CachedImpulse> records(const std::vector<std::uint64_t>& keys) {
  std::vector<CachedImpulse> out(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out[i].key = keys[i];
    out[i].normal = static_cast<double>(i);
  }
  return out;
}

void expect_stable_order(const std::vector<std::uint64_t>& keys) {
  std::vector<CachedImpulse> sorted = records(keys);
  sort_warm_cache(sorted);
  std::vector<CachedImpulse> reference = records(keys);
  std::stable_sort(reference.begin(), reference.end(),
                   [](const CachedImpulse& a, const CachedImpulse& b) { return a.key < b.key; });
  ASSERT_EQ(sorted.size(), reference.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    ASSERT_EQ(sorted[i].key, reference[i].key) << "at " << i;
    ASSERT_EQ(sorted[i].normal, reference[i].normal) << "at " << i;
    // `order` is the record's position before sorting, as the world's lookups expect.
    ASSERT_EQ(sorted[i].order, static_cast<std::uint32_t>(reference[i].normal)) << "at " << i;
  }
}

TEST(WarmCacheSort, PairByPairContactsWithShuffledFeaturesAndRepeats) {
  // As the step stores them: pairs in order, each pair's points in any feature order, and now
  // and then two points with the same feature (equal keys keep their order).
  std::mt19937 rng(7);
  std::vector<std::uint64_t> keys;
  for (int a = 0; a < 200; ++a) {
    for (int b = a + 1; b < a + 4; ++b) {
      std::vector<std::uint32_t> features = {3, 1, 4, 1, 5, 9, 2, 6};
      std::shuffle(features.begin(), features.end(), rng);
      features.resize(1 + rng() % 8);
      for (std::uint32_t f : features) keys.push_back(contact_key(a, b, f));
    }
  }
  expect_stable_order(keys);
}

TEST(WarmCacheSort, ShuffledAndReversedInputsPastTheInsertionBudget) {
  // Far from sorted: the insertion sort gives up and std::sort must give the same order.
  std::mt19937 rng(11);
  std::vector<std::uint64_t> keys(5000);
  for (std::uint64_t& k : keys) k = contact_key(static_cast<int>(rng() % 50), 60, rng() % 4);
  expect_stable_order(keys);
  std::sort(keys.rbegin(), keys.rend());
  expect_stable_order(keys);
}

TEST(WarmCacheSort, EmptyAndSingle) {
  expect_stable_order({});
  expect_stable_order({contact_key(1, 2, 3)});
}

}  // namespace
}  // namespace impetus
