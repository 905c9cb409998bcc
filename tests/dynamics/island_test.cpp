// build_islands (dynamics/island.h) across builds: islands that vanish keep their lists for the
// builds after, so a step with more islands than the last does not allocate their lists anew.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "dynamics/island.h"

namespace impetus {
namespace {

// `islands` chains of `length` dynamic bodies, linked by contacts along each chain.
void chains(int islands, int length, std::vector<char>& dynamic,
            std::vector<std::array<int, 2>>& contacts) {
  dynamic.assign(islands * length, 1);
  contacts.clear();
  for (int i = 0; i < islands; ++i)
    for (int b = 1; b < length; ++b) contacts.push_back({i * length + b - 1, i * length + b});
}

TEST(BuildIslands, IslandsThatVanishKeepTheirListsForLaterBuilds) {
  IslandScratch scratch;
  std::vector<Island> islands;
  std::vector<char> dynamic;
  std::vector<std::array<int, 2>> contacts;
  const std::vector<std::array<int, 2>> no_joints;

  chains(3, 100, dynamic, contacts);
  build_islands(dynamic, contacts, no_joints, scratch, islands);
  ASSERT_EQ(islands.size(), 3u);
  for (const Island& island : islands) {
    ASSERT_EQ(island.bodies.size(), 100u);
    ASSERT_EQ(island.contacts.size(), 99u);
  }

  chains(1, 2, dynamic, contacts);  // one small island: two of the three vanish
  build_islands(dynamic, contacts, no_joints, scratch, islands);
  ASSERT_EQ(islands.size(), 1u);
  EXPECT_EQ(islands[0].bodies, (std::vector<int>{0, 1}));
  EXPECT_EQ(islands[0].contacts, (std::vector<int>{0}));

  chains(3, 2, dynamic, contacts);  // three small islands again
  build_islands(dynamic, contacts, no_joints, scratch, islands);
  ASSERT_EQ(islands.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(islands[i].bodies, (std::vector<int>{2 * i, 2 * i + 1})) << i;
    EXPECT_EQ(islands[i].contacts, (std::vector<int>{i})) << i;
    // Lists of the first build's size: kept, not made anew for two bodies.
    EXPECT_GE(islands[i].bodies.capacity(), 100u) << i;
    EXPECT_GE(islands[i].contacts.capacity(), 99u) << i;
  }
}

}  // namespace
}  // namespace impetus
