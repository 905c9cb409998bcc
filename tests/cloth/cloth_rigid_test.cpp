// Cloth–rigid contact: signed point–shape distances against dense surface sampling for every
// shape type, cloth dropped on each shape (held up, never deeper than the thickness), and the
// reactions on a supporting body balancing the cloth's weight (momentum).
#include <gtest/gtest.h>

#include <memory>

#include "cloth/cloth_rigid.h"
#include "cloth/cloth_sim.h"
#include "cloth/point_shape_distance.h"
#include "cloth_test_util.h"
#include "collision/convex_hull.h"
#include "collision/triangle_mesh.h"

namespace impetus {
namespace {

using cloth_test::random_vec;
using cloth_test::uniform;

const Vec3 kGravity(0, 0, -9.81);

// Dense samples of a shape's surface (local frame) and an inside test.
struct SurfaceSamples {
  std::vector<Vec3> points;
  double spacing = 0;
};

SurfaceSamples sample_ellipsoid(const Vec3& r, int n) {
  SurfaceSamples s;
  for (int i = 0; i <= n; ++i) {
    const double th = kPi * i / n;
    for (int j = 0; j < 2 * n; ++j) {
      const double ph = kPi * j / n;
      s.points.push_back(Vec3(r.x() * std::sin(th) * std::cos(ph), r.y() * std::sin(th) * std::sin(ph),
                              r.z() * std::cos(th)));
    }
  }
  s.spacing = kPi * r.maxCoeff() / n;
  return s;
}

SurfaceSamples sample_box(const Vec3& h, int n) {
  SurfaceSamples s;
  for (int axis = 0; axis < 3; ++axis) {
    for (double sign : {-1.0, 1.0}) {
      for (int i = 0; i <= n; ++i) {
        for (int j = 0; j <= n; ++j) {
          Vec3 p;
          p[axis] = sign * h[axis];
          p[(axis + 1) % 3] = h[(axis + 1) % 3] * (2.0 * i / n - 1);
          p[(axis + 2) % 3] = h[(axis + 2) % 3] * (2.0 * j / n - 1);
          s.points.push_back(p);
        }
      }
    }
  }
  s.spacing = 2 * h.maxCoeff() / n * std::sqrt(2.0);
  return s;
}

SurfaceSamples sample_capsule(double r, double hl, int n) {
  SurfaceSamples s;
  for (int i = 0; i <= n; ++i) {
    const double th = kPi * i / n;
    for (int j = 0; j < 2 * n; ++j) {
      const double ph = kPi * j / n;
      Vec3 d(std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), std::cos(th));
      s.points.push_back(r * d + Vec3(0, 0, d.z() >= 0 ? hl : -hl));
    }
  }
  for (int k = 0; k <= n; ++k) {
    const double z = -hl + 2 * hl * k / n;
    for (int j = 0; j < 2 * n; ++j) {
      const double ph = kPi * j / n;
      s.points.push_back(Vec3(r * std::cos(ph), r * std::sin(ph), z));
    }
  }
  s.spacing = std::max(kPi * r / n, 2 * hl / n) * 1.5;
  return s;
}

void check_against_samples(const Shape& shape, const SurfaceSamples& samples,
                           const std::function<bool(const Vec3&)>& inside, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const Pose pose{Vec3(0.3, -0.2, 1.0), Quat(Eigen::AngleAxisd(0.5, Vec3(1, 1, 0).normalized()))};
  int inside_count = 0, outside_count = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Vec3 q = random_vec(rng, -1.3, 1.3);  // local
    const Vec3 x = pose.apply(q);
    ShapeProximity prox;
    ASSERT_TRUE(point_shape_proximity(shape, pose, x, x, 1e9, prox));
    double best = 1e300;
    for (const Vec3& s : samples.points) best = std::min(best, (q - s).norm());
    const bool in = inside(q);
    (in ? inside_count : outside_count)++;
    EXPECT_EQ(prox.distance < 0, in) << trial;
    EXPECT_LE(std::abs(prox.distance), best + 1e-9) << trial;
    EXPECT_GE(std::abs(prox.distance), best - samples.spacing) << trial;
    // The closest point is on the surface at that distance, and the normal points from it to x
    // (outside) or away from x (inside).
    EXPECT_NEAR((x - prox.point).norm(), std::abs(prox.distance), 1e-9) << trial;
    if (std::abs(prox.distance) > 1e-6) {
      EXPECT_NEAR((x - prox.point).normalized().dot(prox.normal), prox.distance > 0 ? 1.0 : -1.0, 1e-6) << trial;
    }
  }
  EXPECT_GT(inside_count, 10);
  EXPECT_GT(outside_count, 10);
}

TEST(PointShapeDistance, SphereCapsuleBoxEllipsoidAgainstSampling) {
  check_against_samples(Shape::sphere(0.8), sample_ellipsoid(Vec3::Constant(0.8), 200),
                        [](const Vec3& q) { return q.norm() < 0.8; }, 1);
  check_against_samples(Shape::capsule(0.4, 0.5), sample_capsule(0.4, 0.5, 200),
                        [](const Vec3& q) {
                          const double z = std::clamp(q.z(), -0.5, 0.5);
                          return (q - Vec3(0, 0, z)).norm() < 0.4;
                        }, 2);
  const Vec3 h(0.9, 0.5, 0.3);
  check_against_samples(Shape::box(h), sample_box(h, 150),
                        [&](const Vec3& q) { return (q.cwiseAbs().array() < h.array()).all(); }, 3);
  const Vec3 r(1.0, 0.6, 0.3);
  check_against_samples(Shape::ellipsoid(r), sample_ellipsoid(r, 300),
                        [&](const Vec3& q) { return q.cwiseQuotient(r).squaredNorm() < 1; }, 4);
}

TEST(PointShapeDistance, ConvexHullMatchesTheBoxItBounds) {
  const Vec3 h(0.9, 0.5, 0.3);
  const Shape hull = Shape::convex(std::make_shared<const ConvexHull>(box_hull(h)));
  const Shape box = Shape::box(h);
  std::mt19937_64 rng(5);
  const Pose pose{Vec3(1, 2, 3), Quat(Eigen::AngleAxisd(1.1, Vec3(0, 1, 1).normalized()))};
  for (int trial = 0; trial < 500; ++trial) {
    const Vec3 x = pose.apply(random_vec(rng, -1.5, 1.5));
    ShapeProximity a, b;
    ASSERT_TRUE(point_shape_proximity(box, pose, x, x, 1e9, a));
    const bool got = point_shape_proximity(hull, pose, x, x, 1e9, b);
    ASSERT_TRUE(got);
    EXPECT_NEAR(a.distance, b.distance, 1e-9) << trial;
  }
}

std::shared_ptr<const TriangleMesh> box_mesh(const Vec3& h) {
  auto mesh = std::make_shared<TriangleMesh>();
  const ConvexHull hull = box_hull(h);
  mesh->vertices = hull.vertices;
  mesh->triangles = hull.triangles;
  mesh->build_bvh();
  return mesh;
}

TEST(PointShapeDistance, MeshDistanceAndCrossing) {
  const Vec3 h(0.5, 0.5, 0.5);
  const Shape mesh = Shape::triangle_mesh(box_mesh(h));
  const Shape box = Shape::box(h);
  const Pose pose;
  std::mt19937_64 rng(6);
  for (int trial = 0; trial < 300; ++trial) {
    Vec3 x = random_vec(rng, -1.5, 1.5);
    if ((x.cwiseAbs().array() < h.array()).all()) continue;  // outside points only
    ShapeProximity a, b;
    ASSERT_TRUE(point_shape_proximity(box, pose, x, x, 1e9, a));
    ASSERT_TRUE(point_shape_proximity(mesh, pose, x, x, 1e9, b));
    EXPECT_NEAR(a.distance, b.distance, 1e-9);
  }
  // A step from above through the top face: inside, behind the top, normal up.
  ShapeProximity c;
  ASSERT_TRUE(point_shape_proximity(mesh, pose, Vec3(0.1, 0.2, 0.45), Vec3(0.1, 0.2, 0.6), 0.01, c));
  EXPECT_NEAR(c.distance, -0.05, 1e-12);
  EXPECT_NEAR(c.normal.z(), 1.0, 1e-12);
}

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
    ASSERT_GE(min_signed_distance(cloth.positions(), colliders), -p.thickness) << shape_type_name(shape.type) << " step " << k;
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
