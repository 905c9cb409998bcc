// Cloth–rigid contact: cloth dropped on each shape type (held up, never deeper than the
// thickness), and the reactions on a supporting body balancing the cloth's weight (momentum).
// The point–shape distances it rests on: tests/collision/distance/point_shape_distance_test.cpp.
#include <gtest/gtest.h>

#include <memory>

#include "cloth/cloth_rigid.h"
#include "cloth/cloth_sim.h"
#include "cloth_test_util.h"
#include "collision/shape/convex_hull.h"
#include "collision/shape/triangle_mesh.h"
#include "tests/test_meshes.h"

namespace impetus {
namespace {

const Vec3 kGravity(0, 0, -9.81);

using test::box_mesh;

// Drop a small cloth on a shape; at the end of every step no vertex may be deeper than the
// thickness, nothing may self-intersect, and the cloth must be held up by the shape.
void drop_on(const Shape& shape, const Vec3& position, double top) {
  ClothParams p = cloth_test::scene_params();
  p.thickness = 0.004;
  ClothSim cloth(make_grid_cloth({0.6, 0.6}, {10, 10}, Vec3(position.x(), position.y(), top + 0.05),
                                 Quat::Identity()), p);
  std::vector<RigidCollider> colliders = {cloth_test::static_collider(1, shape, position)};
  std::vector<RigidImpulse> reactions;
  for (int k = 0; k < 120; ++k) {
    reactions.clear();
    cloth.step(1.0 / 240, kGravity, colliders, reactions);
    ASSERT_GE(cloth_test::min_signed_distance(cloth.positions(), colliders), -p.thickness) << shape_type_name(shape.type) << " step " << k;
    ASSERT_EQ(cloth.stats().self_intersections, 0) << shape_type_name(shape.type) << " step " << k;
  }
  const Vec3 centre = cloth.positions()[5 * 11 + 5];
  EXPECT_GT(centre.z(), top - 0.01) << shape_type_name(shape.type);
  EXPECT_LT(centre.z(), top + 0.02) << shape_type_name(shape.type);
}

TEST(ClothRigid, ClothRestsOnEveryShapeType) {
  const Vec3 at(0, 0, 1);
  drop_on(Shape::sphere(0.2), at, 1.2);
  drop_on(Shape::capsule(0.1, 0.2), at, 1.3);
  drop_on(Shape::box(Vec3(0.15, 0.15, 0.1)), at, 1.1);
  drop_on(Shape::ellipsoid(Vec3(0.3, 0.2, 0.1)), at, 1.1);
  drop_on(Shape::convex(std::make_shared<const ConvexHull>(box_hull(Vec3(0.15, 0.15, 0.1)))), at, 1.1);
  drop_on(Shape::triangle_mesh(box_mesh(Vec3(0.15, 0.15, 0.1))), at, 1.1);
  drop_on(Shape::plane(Vec3::UnitZ(), 0.0), Vec3(0, 0, 0.5), 0.5);
}

TEST(ClothRigid, CoarseClothHangsOnAThinRodBetweenItsVertices) {
  // Vertices 0.1 m apart, a rod of radius 1 cm under the middle of a row of edges: only edge
  // contacts can hold the cloth up.
  ClothParams p = cloth_test::scene_params();
  ClothSim cloth(make_grid_cloth({0.8, 0.8}, {8, 8}, Vec3(0.05, 0, 1.02), Quat::Identity()), p);
  const Quat along_y(Eigen::AngleAxisd(0.5 * kPi, Vec3::UnitX()));
  RigidCollider rod = cloth_test::static_collider(3, Shape::capsule(0.01, 1.0), Vec3(0, 0, 1));
  rod.pose.orientation = along_y;
  std::vector<RigidImpulse> reactions;
  for (int k = 0; k < 120; ++k) {
    cloth.step(1.0 / 240, kGravity, std::span<const RigidCollider>(&rod, 1), reactions);
  }
  // The row of vertices next to the rod stays up near the rod's top.
  double highest = -1e9;
  for (const Vec3& x : cloth.positions()) highest = std::max(highest, x.z());
  EXPECT_GT(highest, 1.0);
  EXPECT_GT(cloth.stats().rigid_contacts, 0);
  bool reaction_on_rod = false;
  for (const RigidImpulse& r : reactions) reaction_on_rod = reaction_on_rod || (r.body == 3 && r.impulse.z() < 0);
  EXPECT_TRUE(reaction_on_rod);
}

TEST(ClothRigid, ReactionsBalanceTheWeightOfAClothAtRest) {
  ClothParams p = cloth_test::scene_params();
  ClothSim cloth(make_grid_cloth({0.5, 0.5}, {8, 8}, Vec3(0, 0, 0.01), Quat::Identity()), p);
  std::vector<RigidCollider> colliders = {cloth_test::static_collider(7, Shape::plane(Vec3::UnitZ(), 0), Vec3::Zero())};
  std::vector<RigidImpulse> reactions;
  const double h = 1.0 / 240;
  for (int k = 0; k < 120; ++k) cloth.step(h, kGravity, colliders, reactions);
  reactions.clear();
  const int n = 120;
  for (int k = 0; k < n; ++k) cloth.step(h, kGravity, colliders, reactions);
  Vec3 total = Vec3::Zero();
  for (const RigidImpulse& r : reactions) {
    EXPECT_EQ(r.body, 7);
    total += r.impulse;
  }
  double mass = 0;
  for (double m : cloth.masses()) mass += m;
  // The ground receives the cloth's weight: Σ J = m g T (downward).
  EXPECT_NEAR(total.z(), mass * kGravity.z() * n * h, 0.02 * mass * 9.81 * n * h);
  // No net sideways push beyond the PCG tolerance (internal forces cancel only up to the
  // solver's residual; the incomplete-factorisation preconditioner is not mirror-symmetric).
  // At rest the PCG stops at its floor, an RMS velocity error of cg_tolerance·h·|g|, i.e. a
  // force error of cg_tolerance·m·|g|: the bound. (It measures 1.8e-4 of the weight with the
  // compensated factorisation, 7e-6 at cg_tolerance 1e-3, 2e-8 at 3e-4.)
  EXPECT_LT(std::hypot(total.x(), total.y()), p.cg_tolerance * mass * 9.81 * n * h);
}

TEST(ClothRigid, FrictionHoldsOnAGentleSlopeAndSlidesOnASteepOne) {
  for (double angle_deg : {5.0, 40.0}) {
    const double a = angle_deg * kPi / 180;
    const Vec3 n(-std::sin(a), 0, std::cos(a));
    ClothParams p = cloth_test::scene_params();
    p.friction = 0.5;
    // μ = √(0.5·0.5) = 0.5: holds below atan(0.5) ≈ 26.6°, slides above.
    const Quat tilt(Eigen::AngleAxisd(-a, Vec3::UnitY()));
    ClothSim cloth(make_grid_cloth({0.3, 0.3}, {6, 6}, n * 0.004, tilt), p);
    std::vector<RigidCollider> colliders = {cloth_test::static_collider(0, Shape::plane(n, 0), Vec3::Zero(), 0.5)};
    std::vector<RigidImpulse> reactions;
    const Vec3 start = cloth.positions()[24];
    for (int k = 0; k < 120; ++k) cloth.step(1.0 / 240, kGravity, colliders, reactions);
    const double moved = (cloth.positions()[24] - start).norm();
    if (angle_deg < 20) EXPECT_LT(moved, 1e-3) << angle_deg;
    else EXPECT_GT(moved, 0.05) << angle_deg;
  }
}

}  // namespace
}  // namespace impetus
