// Backward-Euler integration of the cloth: free fall against kinematics, pinned vertices stay
// exactly put, energy never grows under damping, and the stiff scene material does not
// rubber-band (small strain while hanging).
#include <gtest/gtest.h>

#include "cloth/cloth_sim.h"
#include "cloth_test_util.h"

namespace impetus {
namespace {

const Vec3 kGravity(0, 0, -9.81);

TEST(ClothIntegrator, FreeFallMatchesBackwardEulerKinematics) {
  ClothParams p = cloth_test::scene_params();
  p.self_collision = false;
  p.cg_tolerance = 1e-10;
  ClothSim cloth(make_grid_cloth({1, 1}, {6, 6}, Vec3(0, 0, 2), Quat::Identity()), p);
  const std::vector<Vec3> x0 = cloth.positions();
  std::vector<RigidImpulse> reactions;
  const double h = 1.0 / 240;
  const int n = 60;
  for (int k = 0; k < n; ++k) cloth.step(h, kGravity, {}, reactions);
  // v_n = n h g and x_n = x0 + h Σ_{k=1..n} v_k = x0 + h² g n(n+1)/2.
  for (size_t i = 0; i < x0.size(); ++i) {
    EXPECT_LT((cloth.velocities()[i] - n * h * kGravity).norm(), 1e-8);
    EXPECT_LT((cloth.positions()[i] - (x0[i] + h * h * kGravity * (n * (n + 1) / 2.0))).norm(), 1e-9);
  }
  EXPECT_TRUE(reactions.empty());
}

TEST(ClothIntegrator, PinnedVerticesDoNotMoveAndStretchStaysSmall) {
  // The hang scene's material at 24 × 24, pinned at the two corners of one edge.
  ClothParams p = cloth_test::scene_params();
  const int res = 24;
  p.pinned = {0, res};
  ClothSim cloth(make_grid_cloth({2, 2}, {res, res}, Vec3(0, 0, 3), Quat::Identity()), p);
  const std::vector<Vec3> x0 = cloth.positions();
  std::vector<RigidImpulse> reactions;
  for (int k = 0; k < 240; ++k) {
    cloth.step(1.0 / 240, kGravity, {}, reactions);
    ASSERT_EQ(cloth.positions()[0], x0[0]);
    ASSERT_EQ(cloth.positions()[res], x0[res]);
    ASSERT_EQ(cloth.stats().self_intersections, 0) << "step " << k;
  }
  EXPECT_LT(cloth.mean_edge_strain(), 0.05);
  EXPECT_GT(cloth.positions()[cloth.vertex_count() - 1].z(), 3 - 2.0 * 1.10);  // hangs, not longer
  EXPECT_LT(cloth.positions()[cloth.vertex_count() - 1].z(), 3 - 1.0);         // fell
}

TEST(ClothIntegrator, PaperSizedClothFallsLikeTheSmallOne) {
  // 120 × 120 quads (14,641 vertices), the size of paper 4's hanging cloth: the incomplete-
  // Cholesky preconditioner was unstable at this size and the cloth did not move at all. The
  // vertex farthest from the pins must fall as in free fall over the first steps: after n
  // steps of backward Euler, h² g n(n+1)/2, stiffness barely acting yet.
  ClothParams p = cloth_test::scene_params();
  p.self_collision = false;
  const int res = 120;
  p.pinned = {0, res};
  ClothSim cloth(make_grid_cloth({2, 2}, {res, res}, Vec3(0, 0, 3), Quat::Identity()), p);
  const int far = cloth.vertex_count() - 1 - res / 2;  // middle of the free edge
  const double z0 = cloth.positions()[far].z();
  std::vector<RigidImpulse> reactions;
  const double h = 1.0 / 240;
  const int n = 6;
  for (int k = 0; k < n; ++k) cloth.step(h, kGravity, {}, reactions);
  const double free_fall = h * h * 9.81 * n * (n + 1) / 2.0;
  EXPECT_NEAR(z0 - cloth.positions()[far].z(), free_fall, 0.05 * free_fall);
  for (const Vec3& x : cloth.positions()) ASSERT_TRUE(x.allFinite());
}

TEST(ClothIntegrator, StableWithLargeSteps) {
  // The scene material at 4× and 8× the scenes' step: still bounded, still not stretching.
  for (double h : {1.0 / 60, 1.0 / 30}) {
    ClothParams p = cloth_test::scene_params();
    const int res = 16;
    p.pinned = {0, res};
    ClothSim cloth(make_grid_cloth({2, 2}, {res, res}, Vec3(0, 0, 3), Quat::Identity()), p);
    std::vector<RigidImpulse> reactions;
    const int steps = static_cast<int>(std::lround(1.5 / h));
    for (int k = 0; k < steps; ++k) {
      cloth.step(h, kGravity, {}, reactions);
      ASSERT_EQ(cloth.stats().self_intersections, 0) << "h " << h << " step " << k;
    }
    for (const Vec3& x : cloth.positions()) ASSERT_TRUE(x.allFinite());
    EXPECT_LT(cloth.mean_edge_strain(), 0.05) << h;
    EXPECT_LT(cloth.kinetic_energy(), 5.0) << h;  // released from 3 m: m g h ≈ 1.2 · 9.81 · 1
  }
}

TEST(ClothIntegrator, EnergyDecaysUnderDamping) {
  ClothParams p = cloth_test::scene_params();
  const int res = 12;
  p.pinned = {0, res};
  ClothSim cloth(make_grid_cloth({1, 1}, {res, res}, Vec3(0, 0, 2), Quat::Identity()), p);
  std::vector<RigidImpulse> reactions;
  auto energy = [&] {
    return cloth.kinetic_energy() + cloth.gravitational_energy(kGravity) + cloth.elastic_energy();
  };
  const double start = energy();
  double last = start;
  for (int k = 1; k <= 480; ++k) {
    cloth.step(1.0 / 240, kGravity, {}, reactions);
    if (k % 10 == 0) {
      const double e = energy();
      EXPECT_LE(e, last + 1e-6 * std::abs(start)) << "step " << k;
      last = e;
    }
  }
  EXPECT_LT(last, start - 0.1);  // it swung down and lost energy
  // Damped toward rest: little kinetic energy left compared with the energy released.
  EXPECT_LT(cloth.kinetic_energy(), 0.2 * (start - last));
}

TEST(ClothIntegrator, AttachedVerticesFollowTheirBodyAndPullOnIt) {
  ClothParams p = cloth_test::scene_params();
  const int res = 8;
  ClothSim cloth(make_grid_cloth({0.5, 0.5}, {res, res}, Vec3(0, 0, 2), Quat::Identity()), p);
  // A body far above (its tiny sphere never touches the cloth) carrying two corners.
  RigidCollider body = cloth_test::static_collider(5, Shape::sphere(0.001), Vec3(0, 0, 10));
  cloth.attach(0, 5, body.pose);
  cloth.attach(res, 5, body.pose);
  const Vec3 local0 = body.pose.inverse_apply(cloth.positions()[0]);
  const Vec3 local1 = body.pose.inverse_apply(cloth.positions()[res]);
  const double h = 1.0 / 240;
  std::vector<RigidImpulse> reactions;
  // Carry the cloth sideways while turning, then hold still.
  body.linear_velocity = Vec3(0.5, 0, 0);
  body.angular_velocity = Vec3(0, 0, 0.3);
  for (int k = 0; k < 120; ++k) {
    body.pose.position += h * body.linear_velocity;
    body.pose.orientation = (quat_from_rotation_vector(h * body.angular_velocity) * body.pose.orientation).normalized();
    body.center_of_mass = body.pose.position;
    cloth.step(h, kGravity, std::span<const RigidCollider>(&body, 1), reactions);
    ASSERT_LT((cloth.positions()[0] - body.pose.apply(local0)).norm(), 1e-12) << k;
    ASSERT_LT((cloth.positions()[res] - body.pose.apply(local1)).norm(), 1e-12) << k;
  }
  body.linear_velocity.setZero();
  body.angular_velocity.setZero();
  for (int k = 0; k < 360; ++k) cloth.step(h, kGravity, std::span<const RigidCollider>(&body, 1), reactions);
  reactions.clear();
  const int n = 120;
  for (int k = 0; k < n; ++k) cloth.step(h, kGravity, std::span<const RigidCollider>(&body, 1), reactions);
  Vec3 total = Vec3::Zero();
  for (const RigidImpulse& r : reactions) {
    EXPECT_EQ(r.body, 5);
    total += r.impulse;
  }
  double mass = 0;
  for (double m : cloth.masses()) mass += m;
  // At rest the two corners carry the whole weight: the body is pulled down by m g T.
  EXPECT_NEAR(total.z(), mass * kGravity.z() * n * h, 0.05 * mass * 9.81 * n * h);
}

}  // namespace
}  // namespace impetus
