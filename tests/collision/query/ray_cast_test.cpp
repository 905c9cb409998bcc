// Ray casts against every shape type, checked against an independent reference: an inside test
// built on signed_distance (closed forms, GJK/EPA) or, for the torus mesh, the winding number,
// sampled densely along the ray and refined by bisection at the first sample inside.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "collision/shape/convex_hull.h"
#include "collision/distance/distance.h"
#include "collision/shape/point_in_mesh.h"
#include "collision/shape/procedural_mesh.h"
#include "collision/query/ray_cast.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

struct Case {
  std::string name;
  Shape shape;
  double reach;  // rays aim within this distance of the shape's origin
};

std::vector<Case> shapes() {
  std::vector<Case> cases;
  cases.push_back({"sphere", Shape::sphere(0.7), 0.8});
  cases.push_back({"capsule", Shape::capsule(0.3, 0.6), 1.0});
  cases.push_back({"box", Shape::box(Vec3(0.5, 0.3, 0.8)), 1.0});
  cases.push_back({"ellipsoid", Shape::ellipsoid(Vec3(0.9, 0.4, 0.25)), 1.0});
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Vec3> points;
  for (int i = 0; i < 40; ++i) points.push_back(test::draw_vec3(u, rng).cwiseProduct(Vec3(0.8, 0.5, 0.6)));
  std::string error;
  std::optional<ConvexHull> hull = build_convex_hull(points, &error);
  EXPECT_TRUE(hull.has_value()) << error;
  if (hull) cases.push_back({"convex", Shape::convex(std::make_shared<const ConvexHull>(*hull)), 1.0});
  cases.push_back({"mesh (torus)", Shape::triangle_mesh(torus_mesh(0.7, 0.25, 32, 16)), 1.0});
  return cases;
}

bool inside(const Case& c, const Pose& pose, const Vec3& p) {
  if (c.shape.type == ShapeType::Mesh) return point_in_mesh(*c.shape.mesh, pose.inverse_apply(p));
  const double r = 1e-9;
  const std::optional<DistanceResult> d =
      signed_distance(c.shape, pose, Shape::sphere(r), Pose{p, Quat::Identity()});
  return d.has_value() && d->distance + r <= 0;
}

// First fraction at which the segment is inside, by sampling and bisection; -1 if no sample is.
double reference_fraction(const Case& c, const Pose& pose, const Vec3& o, const Vec3& t,
                          int samples) {
  int first = -1;
  for (int i = 0; i <= samples && first < 0; ++i) {
    if (inside(c, pose, o + (double(i) / samples) * t)) first = i;
  }
  if (first <= 0) return first;
  double lo = double(first - 1) / samples, hi = double(first) / samples;
  for (int k = 0; k < 60; ++k) {
    const double mid = 0.5 * (lo + hi);
    (inside(c, pose, o + mid * t) ? hi : lo) = mid;
  }
  return hi;
}

Pose random_pose(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Pose pose;
  pose.position = test::draw_vec3(u, rng);
  pose.orientation = test::draw_angle_axis(u, rng, 3);
  return pose;
}

TEST(RayCast, MatchesSampledFirstEntryForEveryShapeType) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const Case& c : shapes()) {
    SCOPED_TRACE(c.name);
    int hits = 0, misses = 0, grazes = 0;
    const int rays = 100;
    for (int i = 0; i < rays; ++i) {
      const Pose pose = random_pose(rng);
      const Vec3 direction = test::draw_vec3(u, rng).normalized();
      const Vec3 origin = pose.position + 3.0 * direction;
      const Vec3 target = pose.position + c.reach * test::draw_vec3(u, rng);
      const Vec3 translation = 1.6 * (target - origin);
      const std::optional<ShapeRayHit> hit = ray_cast(c.shape, pose, origin, translation);
      const double ref = reference_fraction(c, pose, origin, translation, 1000);
      ASSERT_NE(ref, 0.0) << "the origin must start outside";
      if (ref < 0) {
        if (!hit) {
          ++misses;
          continue;
        }
        // A grazing hit whose chord falls between two samples: the point must be on the surface.
        ++grazes;
        const std::optional<DistanceResult> d =
            signed_distance(c.shape, pose, Shape::sphere(1e-9), Pose{hit->point, Quat::Identity()});
        ASSERT_TRUE(d.has_value());
        EXPECT_LT(std::abs(d->distance), 1e-6) << "ray " << i;
        continue;
      }
      ASSERT_TRUE(hit.has_value()) << "ray " << i << " enters at fraction " << ref;
      ++hits;
      EXPECT_NEAR(hit->fraction * translation.norm(), ref * translation.norm(), 1e-7) << "ray " << i;
      EXPECT_LT((hit->point - (origin + hit->fraction * translation)).norm(), 1e-12);
      EXPECT_NEAR(hit->normal.norm(), 1.0, 1e-12);
      EXPECT_LT(hit->normal.dot(translation), 0) << "the normal faces the ray";
      // The normal is the surface's: from just outside along it, the closest surface direction
      // points back along it (closed forms, GJK, mesh BVH; independent of the ray cast).
      const Vec3 probe = hit->point + 1e-5 * hit->normal;
      const std::optional<DistanceResult> d =
          signed_distance(c.shape, pose, Shape::sphere(1e-9), Pose{probe, Quat::Identity()});
      ASSERT_TRUE(d.has_value());
      EXPECT_GT(d->normal.dot(hit->normal), 1 - 1e-4) << "ray " << i;
    }
    EXPECT_GE(hits, rays / 5);
    EXPECT_GE(misses, 3);
    EXPECT_LE(grazes, rays / 25);
    std::printf("[ %s ] %d hits, %d misses, %d grazing\n", c.name.c_str(), hits, misses, grazes);
  }
}

TEST(RayCast, ThroughTheTorusHoleMissesAndAcrossTheRingHitsTheNearSide) {
  const Shape torus = Shape::triangle_mesh(torus_mesh(0.7, 0.25, 48, 24));
  const Pose pose;
  // Down the axis, through the hole.
  EXPECT_FALSE(ray_cast(torus, pose, Vec3(0, 0, 2), Vec3(0, 0, -4)).has_value());
  // Along x through both sides of the ring: the first wall is at x = −(0.7 + 0.25) (the mesh's
  // polygonal outer equator lies within cos(π/48) of it; its facets tilt by up to half a cell).
  const std::optional<ShapeRayHit> hit = ray_cast(torus, pose, Vec3(-3, 0, 0), Vec3(6, 0, 0));
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->point.x(), -0.95, 0.95 * (1 - std::cos(M_PI / 48)) + 1e-9);
  EXPECT_LT(hit->normal.x(), -std::cos(M_PI / 24 + M_PI / 48));
}

TEST(RayCast, SolidShapesHitAtZeroFromInsideAndPlanesAreHalfSpaces) {
  const Vec3 t(0.3, -0.2, 0.1);
  for (const Case& c : shapes()) {
    if (c.shape.type == ShapeType::Mesh) continue;
    SCOPED_TRACE(c.name);
    const Pose pose = Pose{Vec3(1, 2, 3), Quat(Eigen::AngleAxisd(0.7, Vec3(0, 1, 0)))};
    const std::optional<ShapeRayHit> hit = ray_cast(c.shape, pose, pose.position, t);
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->fraction, 0.0);
    EXPECT_LT((hit->normal + t.normalized()).norm(), 1e-12);
    EXPECT_TRUE(ray_cast(c.shape, pose, pose.position, Vec3::Zero()).has_value());
    EXPECT_FALSE(ray_cast(c.shape, pose, pose.position + Vec3(5, 0, 0), Vec3::Zero()).has_value());
    // Too short to reach the shape.
    EXPECT_FALSE(ray_cast(c.shape, pose, pose.position + Vec3(5, 0, 0), Vec3(-0.5, 0, 0)).has_value());
  }
  // The plane z <= 1 (a ground at height 1), placed with an identity pose.
  const Shape ground = Shape::plane(Vec3::UnitZ(), 1.0);
  const std::optional<ShapeRayHit> down = ray_cast(ground, Pose{}, Vec3(3, 4, 5), Vec3(2, 0, -8));
  ASSERT_TRUE(down.has_value());
  EXPECT_NEAR(down->fraction, 0.5, 1e-15);
  EXPECT_NEAR(down->point.z(), 1.0, 1e-15);
  EXPECT_LT((down->normal - Vec3::UnitZ()).norm(), 1e-15);
  EXPECT_FALSE(ray_cast(ground, Pose{}, Vec3(3, 4, 5), Vec3(2, 0, 8)).has_value());
  EXPECT_FALSE(ray_cast(ground, Pose{}, Vec3(3, 4, 5), Vec3(0, 0, -3.9)).has_value());
}

}  // namespace
}  // namespace impetus
