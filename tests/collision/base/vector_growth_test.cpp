// vector_growth.h: refills that fit keep the buffer; growth takes at least half the capacity
// more, so a buffer that grows a little at a time allocates a logarithmic number of times.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "collision/base/vector_growth.h"

namespace impetus {
namespace {

TEST(VectorGrowth, RefillsThatFitKeepTheBuffer) {
  std::vector<int> v;
  v.reserve(100);
  const int* buffer = v.data();
  assign_growing(v, 100, 7);
  EXPECT_EQ(v, std::vector<int>(100, 7));
  resize_growing(v, 40);
  resize_growing(v, 90);
  EXPECT_EQ(v.size(), 90u);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(v[i], 7) << i;  // resize keeps the front
  for (int i = 40; i < 90; ++i) EXPECT_EQ(v[i], 0) << i;
  const std::vector<int> source(100, 3);
  copy_growing(v, source);
  EXPECT_EQ(v, source);
  EXPECT_EQ(v.data(), buffer);
  EXPECT_EQ(v.capacity(), 100u);
}

TEST(VectorGrowth, GrowthTakesAtLeastHalfTheCapacityMore) {
  std::vector<double> v;
  v.reserve(100);
  assign_growing(v, 101, 1.5);
  EXPECT_EQ(v, std::vector<double>(101, 1.5));
  EXPECT_GE(v.capacity(), 150u);
  // Shrunk first: std::vector::resize would grow from the size (10) to exactly 151.
  v.resize(10);
  const std::size_t before = v.capacity();
  resize_growing(v, before + 1);
  EXPECT_GE(v.capacity(), before + before / 2);
  // A jump past 1.5 × the capacity gets what it asks for.
  std::vector<int> w(4);
  std::vector<int> source(1000);
  std::iota(source.begin(), source.end(), 0);
  copy_growing(w, source.begin() + 1, source.end());
  EXPECT_EQ(w, std::vector<int>(source.begin() + 1, source.end()));
}

TEST(VectorGrowth, ASizeGrowingByOneAllocatesLogarithmically) {
  // The pattern that motivated it: an island's buffer refilled each step one element larger.
  std::vector<int> v;
  int allocations = 0;
  for (int n = 1; n <= 10000; ++n) {
    const int* before = v.data();
    assign_growing(v, n, n);
    if (v.data() != before) ++allocations;
    ASSERT_EQ(v.size(), static_cast<std::size_t>(n));
    ASSERT_EQ(v.back(), n);
  }
  EXPECT_LE(allocations, 25);  // log_1.5(10000) ≈ 23; plain assign: 10000
}

}  // namespace
}  // namespace impetus
