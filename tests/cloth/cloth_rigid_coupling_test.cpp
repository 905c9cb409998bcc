// Cloth–rigid coupling through edges and faces: a coarse cloth (vertices far apart compared
// with the shape's features) must not sag through box edges, a pyramid apex or an ellipsoid's
// curve between its vertices, and the reactions handed to the bodies must balance the cloth's
// momentum change (Newton's third law). Penetration is measured by dense sampling of the cloth
// triangles against closed-form inside tests, independent of the contact code.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "cloth/cloth_rigid.h"
#include "cloth/cloth_sim.h"
#include "cloth_test_util.h"
#include "collision/shape/convex_hull.h"

namespace impetus {
namespace {

const Vec3 kGravity(0, 0, -9.81);

// Deepest penetration of the cloth surface (barycentric samples of every triangle) into a
// solid given by `depth(p)` (> 0 inside).
template <class Depth>
double deepest_sample(const ClothSim& cloth, Depth depth) {
  constexpr int kN = 12;
  double worst = 0;
  const std::vector<Vec3>& x = cloth.positions();
  for (const auto& t : cloth.triangles()) {
    for (int i = 0; i <= kN; ++i) {
      for (int j = 0; i + j <= kN; ++j) {
        const double a = double(i) / kN, b = double(j) / kN;
        const Vec3 p = (1 - a - b) * x[t[0]] + a * x[t[1]] + b * x[t[2]];
        worst = std::max(worst, depth(p));
      }
    }
  }
  return worst;
}

struct DropResult {
  double deepest = 0;
  double lowest_z = 0;
};

template <class Depth>
DropResult drop_coarse(const RigidCollider& body, double cloth_z, Depth depth) {
  ClothParams p = cloth_test::scene_params();
  // 0.25 m between vertices, offset so that the body's edges fall between them.
  ClothSim cloth(make_grid_cloth({1.0, 1.0}, {4, 4}, Vec3(0.11, 0.07, cloth_z), Quat::Identity()), p);
  std::vector<RigidImpulse> reactions;
  DropResult r;
  for (int k = 0; k < 240; ++k) {
    cloth.step(1.0 / 240, kGravity, std::span<const RigidCollider>(&body, 1), reactions);
    r.deepest = std::max(r.deepest, deepest_sample(cloth, depth));
  }
  r.lowest_z = 1e9;
  for (const Vec3& x : cloth.positions()) r.lowest_z = std::min(r.lowest_z, x.z());
  return r;
}

TEST(ClothRigidCoupling, CoarseClothDoesNotSagThroughBoxEdges) {
  const Vec3 he(0.25, 0.25, 0.25);
  RigidCollider box = cloth_test::static_collider(1, Shape::box(he), Vec3(0, 0, 0.25));
  auto depth = [&](const Vec3& p) {
    const Vec3 q = (p - Vec3(0, 0, 0.25)).cwiseAbs();
    return std::min({he.x() - q.x(), he.y() - q.y(), he.z() - q.z()});
  };
  const DropResult r = drop_coarse(box, 0.52, depth);
  EXPECT_LT(r.deepest, 1e-3);
  // The cloth drapes: its rim falls below the top of the box.
  EXPECT_LT(r.lowest_z, 0.4);
}

TEST(ClothRigidCoupling, CoarseClothDoesNotSagThroughAPyramidApexOrAnEllipsoid) {
  // Square pyramid: base 0.6 × 0.6 at z = 0, apex at (0, 0, 0.4), as a convex hull.
  const double half = 0.3, height = 0.4;
  std::string error;
  std::optional<ConvexHull> hull = build_convex_hull(
      {Vec3(-half, -half, 0), Vec3(half, -half, 0), Vec3(half, half, 0), Vec3(-half, half, 0), Vec3(0, 0, height)},
      &error);
  ASSERT_TRUE(hull) << error;
  RigidCollider pyramid = cloth_test::static_collider(2, Shape::convex(std::make_shared<const ConvexHull>(*hull)), Vec3::Zero());
  auto pyramid_depth = [&](const Vec3& p) {
    // Inside: z > 0 and |x|, |y| < half·(1 − z/height); depth along the slanted faces.
    const double s = std::hypot(1.0, half / height);
    const double side = std::min(half * (1 - p.z() / height) - std::abs(p.x()),
                                 half * (1 - p.z() / height) - std::abs(p.y())) / s;
    return std::min(p.z(), side);
  };
  const DropResult rp = drop_coarse(pyramid, height + 0.02, pyramid_depth);
  EXPECT_LT(rp.deepest, 1e-3);

  const Vec3 radii(0.4, 0.3, 0.2);
  RigidCollider ellipsoid = cloth_test::static_collider(3, Shape::ellipsoid(radii), Vec3::Zero());
  auto ellipsoid_depth = [&](const Vec3& p) {
    // A lower bound of the depth: (1 − ‖p/r‖) · smallest radius.
    const double k = p.cwiseQuotient(radii).norm();
    return (1 - k) * radii.minCoeff();
  };
  const DropResult re = drop_coarse(ellipsoid, radii.z() + 0.02, ellipsoid_depth);
  EXPECT_LT(re.deepest, 1e-3);
}

TEST(ClothRigidCoupling, ReactionsBalanceTheClothMomentumChange) {
  // A cloth falls onto moving bodies (a rising box, a sphere moving sideways, a spinning
  // pyramid); at every step the cloth's momentum change equals gravity's impulse minus the
  // sum of the reactions the bodies receive.
  std::string error;
  std::optional<ConvexHull> hull = build_convex_hull(
      {Vec3(-0.2, -0.2, -0.1), Vec3(0.2, -0.2, -0.1), Vec3(0.2, 0.2, -0.1), Vec3(-0.2, 0.2, -0.1), Vec3(0, 0, 0.15)},
      &error);
  ASSERT_TRUE(hull) << error;
  std::vector<RigidCollider> bodies = {
      cloth_test::static_collider(0, Shape::box(Vec3(0.2, 0.2, 0.1)), Vec3(-0.4, 0, 0.9)),
      cloth_test::static_collider(1, Shape::sphere(0.15), Vec3(0.4, 0.3, 0.9)),
      cloth_test::static_collider(2, Shape::convex(std::make_shared<const ConvexHull>(*hull)), Vec3(0.3, -0.4, 0.9)),
  };
  bodies[0].linear_velocity = Vec3(0, 0, 0.3);
  bodies[1].linear_velocity = Vec3(0.5, 0, 0);
  bodies[2].angular_velocity = Vec3(0, 0, 2.0);
  ClothParams p = cloth_test::scene_params();
  // Solve to round-off: internal forces then cancel, and what is left is the contacts' balance.
  p.cg_tolerance = 1e-10;
  p.cg_max_iterations = 2000;
  ClothSim cloth(make_grid_cloth({1.6, 1.6}, {8, 8}, Vec3(0.03, 0.02, 1.05), Quat::Identity()), p);
  const double h = 1.0 / 240;
  double mass = 0;
  for (double m : cloth.masses()) mass += m;
  auto momentum = [&] {
    Vec3 P = Vec3::Zero();
    for (size_t i = 0; i < cloth.velocities().size(); ++i) P += cloth.masses()[i] * cloth.velocities()[i];
    return P;
  };
  double total_reaction = 0;
  std::vector<RigidImpulse> reactions;
  for (int k = 0; k < 160; ++k) {
    for (RigidCollider& b : bodies) {
      b.pose.position += h * b.linear_velocity;
      b.center_of_mass = b.pose.position;
      b.pose.orientation = (Quat(Eigen::AngleAxisd(h * b.angular_velocity.norm(),
                                                   b.angular_velocity.norm() > 0 ? Vec3(b.angular_velocity.normalized()) : Vec3::UnitZ())) *
                            b.pose.orientation).normalized();
    }
    const Vec3 before = momentum();
    reactions.clear();
    cloth.step(h, kGravity, bodies, reactions);
    Vec3 sum = Vec3::Zero();
    for (const RigidImpulse& r : reactions) {
      ASSERT_GE(r.body, 0);
      sum += r.impulse;
      total_reaction += r.impulse.norm();
    }
    const Vec3 imbalance = (momentum() - before) - mass * h * kGravity + sum;
    EXPECT_LT(imbalance.norm(), 1e-9 * (sum.norm() + mass * h * 9.81)) << "step " << k;
  }
  EXPECT_GT(total_reaction, 0.01);  // the bodies were hit
  EXPECT_GT(cloth.stats().rigid_contacts, 0);
}

}  // namespace
}  // namespace impetus
