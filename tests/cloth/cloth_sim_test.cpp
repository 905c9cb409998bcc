// Whole-step behaviour: a cloth dropped on a sphere never ends a step self-intersecting or
// deeper than its thickness in the sphere; results are bit-identical for 1, 2, 3, 4 and 7
// threads and for the three culling modes (culling is exact, so it cannot change the simulation).
#include <gtest/gtest.h>

#include <cstring>

#include "cloth/block_ichol.h"
#include "cloth/cloth_rigid.h"
#include "cloth/cloth_sim.h"
#include "cloth/cloth_parallel.h"
#include "cloth_test_util.h"

namespace impetus {
namespace {

const Vec3 kGravity(0, 0, -9.81);

std::vector<RigidCollider> sphere_and_ground() {
  return {cloth_test::static_collider(0, Shape::plane(Vec3::UnitZ(), 0), Vec3::Zero()),
          cloth_test::static_collider(1, Shape::sphere(0.25), Vec3(0, 0, 0.5))};
}

ClothSim drop_cloth(int res, ConeCulling mode, int threads, double height = 0.85) {
  ClothParams p = cloth_test::scene_params();
  p.culling = mode;
  if (threads > 0) p.threads = threads;
  return ClothSim(make_grid_cloth({1, 1}, {res, res}, Vec3(0.05, -0.03, height), Quat::Identity()), p);
}

TEST(ClothSim, DropOnSphereNeverSelfIntersectsNorSinksIn) {
  ClothSim cloth = drop_cloth(20, ConeCulling::Tight5pt, 1);
  const std::vector<RigidCollider> colliders = sphere_and_ground();
  std::vector<RigidImpulse> reactions;
  int contacts = 0;
  for (int k = 0; k < 300; ++k) {
    cloth.step(1.0 / 240, kGravity, colliders, reactions);
    ASSERT_EQ(cloth.stats().self_intersections, 0) << "step " << k;
    ASSERT_GE(cloth_test::min_signed_distance(cloth.positions(), colliders), -cloth.params().thickness) << "step " << k;
    contacts += cloth.stats().proximity_contacts + cloth.stats().ccd_contacts;
  }
  EXPECT_GT(contacts, 0);  // the folds did touch
  // Draped over the ball: the centre rests on top of it, the corners hang lower.
  const Vec3 centre = cloth.positions()[10 * 21 + 10];
  EXPECT_NEAR(centre.z(), 0.75, 0.02);
  EXPECT_LT(cloth.positions()[0].z(), 0.5);
}

std::vector<Vec3> run(int res, ConeCulling mode, int threads, int steps,
                      std::vector<long long>* pairs = nullptr, double height = 0.85) {
  ClothSim cloth = drop_cloth(res, mode, threads, height);
  const std::vector<RigidCollider> colliders = sphere_and_ground();
  std::vector<RigidImpulse> reactions;
  for (int k = 0; k < steps; ++k) {
    cloth.step(1.0 / 240, kGravity, colliders, reactions);
    if (pairs) pairs->push_back(cloth.stats().pairs_after_culling);
  }
  std::vector<Vec3> state = cloth.positions();
  state.insert(state.end(), cloth.velocities().begin(), cloth.velocities().end());
  return state;
}

bool bitwise_equal(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    for (int k = 0; k < 3; ++k)
      if (std::memcmp(&a[i][k], &b[i][k], sizeof(double)) != 0) return false;
  return true;
}

TEST(ClothSim, BitIdenticalAcrossThreadCounts) {
  // 24 × 24: 625 vertices and 1152 triangles, several chunks per vertex and triangle loop.
  // Dropped from just above the ball so that contacts start within a few steps.
  const std::vector<Vec3> one = run(24, ConeCulling::Tight5pt, 1, 45, nullptr, 0.77);
  EXPECT_TRUE(bitwise_equal(one, run(24, ConeCulling::Tight5pt, 2, 45, nullptr, 0.77)));
  EXPECT_TRUE(bitwise_equal(one, run(24, ConeCulling::Tight5pt, 3, 45, nullptr, 0.77)));
  EXPECT_TRUE(bitwise_equal(one, run(24, ConeCulling::Tight5pt, 4, 45, nullptr, 0.77)));
  EXPECT_TRUE(bitwise_equal(one, run(24, ConeCulling::Tight5pt, 7, 45, nullptr, 0.77)));
  // The same with every loop of more than one chunk forced parallel, whatever the machine's
  // load (by default small loops and busy machines run serially, cloth_parallel.h).
  ClothParallelTuning& tuning = cloth_parallel_tuning();
  tuning.load_gate = false;
  tuning.min_items = 1;
  const std::vector<Vec3> two = run(24, ConeCulling::Tight5pt, 2, 45, nullptr, 0.77);
  const std::vector<Vec3> three = run(24, ConeCulling::Tight5pt, 3, 45, nullptr, 0.77);
  const std::vector<Vec3> four = run(24, ConeCulling::Tight5pt, 4, 45, nullptr, 0.77);
  const std::vector<Vec3> seven = run(24, ConeCulling::Tight5pt, 7, 45, nullptr, 0.77);
  tuning.load_gate = true;
  tuning.min_items = kMinParallelItems;
  EXPECT_TRUE(bitwise_equal(one, two));
  EXPECT_TRUE(bitwise_equal(one, three));
  EXPECT_TRUE(bitwise_equal(one, four));
  EXPECT_TRUE(bitwise_equal(one, seven));
}

TEST(ClothSim, BitIdenticalAcrossThreadCountsWithTheFactorisationSplit) {
  // 32 × 32: 1,089 vertices, enough for the incomplete factorisation's two halves
  // (block_ichol.h), which two threads factor and sweep side by side.
  ASSERT_GE(33 * 33, kIcholMinSplitRows);
  const std::vector<Vec3> one = run(32, ConeCulling::Tight5pt, 1, 30, nullptr, 0.77);
  ClothParallelTuning& tuning = cloth_parallel_tuning();
  tuning.load_gate = false;
  const std::vector<Vec3> two = run(32, ConeCulling::Tight5pt, 2, 30, nullptr, 0.77);
  const std::vector<Vec3> three = run(32, ConeCulling::Tight5pt, 3, 30, nullptr, 0.77);
  tuning.load_gate = true;
  EXPECT_TRUE(bitwise_equal(one, two));
  EXPECT_TRUE(bitwise_equal(one, three));
}

TEST(ClothSim, CullingModesGiveTheSameSimulation) {
  std::vector<long long> none_pairs, provot_pairs, tight_pairs;
  const std::vector<Vec3> none = run(16, ConeCulling::None, 1, 150, &none_pairs);
  EXPECT_TRUE(bitwise_equal(none, run(16, ConeCulling::ProvotTang3, 1, 150, &provot_pairs)));
  EXPECT_TRUE(bitwise_equal(none, run(16, ConeCulling::Tight5pt, 1, 150, &tight_pairs)));
  long long n = 0, p = 0, t = 0;
  for (size_t k = 0; k < none_pairs.size(); ++k) {
    n += none_pairs[k];
    p += provot_pairs[k];
    t += tight_pairs[k];
    EXPECT_LE(provot_pairs[k], none_pairs[k]);
    EXPECT_LE(tight_pairs[k], none_pairs[k]);
  }
  EXPECT_LT(p, n);
  EXPECT_LT(t, n);
}

}  // namespace
}  // namespace impetus
