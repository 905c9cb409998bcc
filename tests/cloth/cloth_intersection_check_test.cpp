// WorldDef::cloth_intersection_check_every: the world counts a cloth's self-intersections
// exactly at the end of every N-th step (WorldStats::cloth_self_intersections_max), and
// World::cloth_self_intersections counts on request whatever N is. The reference is the
// brute-force count of the same triangles.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "cloth/triangle_intersection.h"
#include "engine/world.h"

namespace impetus {
namespace {

// Two triangles, every vertex pinned (nothing moves): the second pierces the first, so the
// cloth self-intersects at every step.
ClothDef pierced_pair() {
  ClothDef def;
  def.name = "pierced";
  def.is_grid = false;
  def.mesh_vertices = {Vec3(0, 0, 1), Vec3(2, 0, 1), Vec3(0, 2, 1),
                       Vec3(0.3, 0.3, 0), Vec3(0.3, 0.3, 2), Vec3(1.0, -0.5, 1)};
  def.mesh_triangles = {{0, 1, 2}, {3, 4, 5}};
  def.pin = {0, 1, 2, 3, 4, 5};
  return def;
}

int brute_force_count(const ClothDef& def) {
  return count_self_intersections_brute_force(def.mesh_vertices, def.mesh_triangles);
}

WorldDef world_checking_every(int every) {
  WorldDef def;
  def.threads = 1;
  def.cloth_intersection_check_every = every;
  return def;
}

TEST(ClothIntersectionCheck, TheWorldCountsOnlyAtTheEndOfEveryNthStep) {
  const ClothDef cloth = pierced_pair();
  const int expected = brute_force_count(cloth);
  ASSERT_GT(expected, 0);
  World world(world_checking_every(3));
  world.create_cloth(cloth);
  for (int step = 1; step <= 7; ++step) {
    world.step();
    ASSERT_EQ(world.status(), WorldStatus::Ok);
    // Steps 1 and 2 are not counted; step 3 and after it, 6, are.
    EXPECT_EQ(world.stats().cloth_self_intersections_max, step >= 3 ? expected : 0) << step;
  }
  EXPECT_GT(world.stats().cloth_phase_seconds[static_cast<int>(ClothPhase::IntersectionCount)], 0);
}

TEST(ClothIntersectionCheck, EveryStepByDefault) {
  const ClothDef cloth = pierced_pair();
  World world{WorldDef{}};
  ASSERT_EQ(WorldDef{}.cloth_intersection_check_every, 1);
  world.create_cloth(cloth);
  world.step();
  EXPECT_EQ(world.stats().cloth_self_intersections_max, brute_force_count(cloth));
}

TEST(ClothIntersectionCheck, ZeroCountsOnlyOnRequest) {
  const ClothDef cloth = pierced_pair();
  World world(world_checking_every(0));
  world.create_cloth(cloth);
  for (int step = 0; step < 4; ++step) world.step();
  EXPECT_EQ(world.stats().cloth_self_intersections_max, 0);
  EXPECT_EQ(world.stats().cloth_phase_seconds[static_cast<int>(ClothPhase::IntersectionCount)], 0);
  // Asked for, the state is counted (twice the same answer: the second is the cached count).
  EXPECT_EQ(world.cloth_self_intersections(0), brute_force_count(cloth));
  EXPECT_EQ(world.cloth_self_intersections(0), brute_force_count(cloth));
}

TEST(ClothIntersectionCheck, ANegativeIntervalIsRejected) {
  EXPECT_THROW(World{world_checking_every(-1)}, std::invalid_argument);
}

}  // namespace
}  // namespace impetus
