// point_shape_proximity, the signed distance from a point to each shape type, against dense
// sampling of the shape's surface (sphere, capsule, box, ellipsoid), and convex hulls and
// two-sided meshes against the box they describe, a step through a mesh face counting as inside.
#include "collision/distance/point_shape_distance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <random>

#include "collision/shape/convex_hull.h"
#include "collision/shape/triangle_mesh.h"
#include "tests/test_meshes.h"
#include "tests/collision/narrowphase/narrowphase_reference.h"

namespace impetus {
namespace {

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
  for (int trial = 0; trial < 300; ++trial) {
    // Inside and outside points in turn (150 each), each uniform over its part of the cube: a
    // few percent of the cube is inside the thin shapes, too few to count on in plain draws.
    const bool want_inside = trial % 2 == 0;
    Vec3 q;  // local
    int draws = 0;
    do {
      q = testref::random_vector(rng, -1.3, 1.3);
      ASSERT_LT(++draws, 1000) << "no " << (want_inside ? "inside" : "outside") << " point drawn";
    } while (inside(q) != want_inside);
    const Vec3 x = pose.apply(q);
    ShapeProximity prox;
    ASSERT_TRUE(point_shape_proximity(shape, pose, x, x, 1e9, prox));
    double best = 1e300;
    for (const Vec3& s : samples.points) best = std::min(best, (q - s).norm());
    EXPECT_EQ(prox.distance < 0, want_inside) << trial;
    EXPECT_LE(std::abs(prox.distance), best + 1e-9) << trial;
    EXPECT_GE(std::abs(prox.distance), best - samples.spacing) << trial;
    // The closest point is on the surface at that distance, and the normal points from it to x
    // (outside) or away from x (inside).
    EXPECT_NEAR((x - prox.point).norm(), std::abs(prox.distance), 1e-9) << trial;
    if (std::abs(prox.distance) > 1e-6) {
      EXPECT_NEAR((x - prox.point).normalized().dot(prox.normal), prox.distance > 0 ? 1.0 : -1.0, 1e-6) << trial;
    }
  }
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
    const Vec3 x = pose.apply(testref::random_vector(rng, -1.5, 1.5));
    ShapeProximity a, b;
    ASSERT_TRUE(point_shape_proximity(box, pose, x, x, 1e9, a));
    const bool got = point_shape_proximity(hull, pose, x, x, 1e9, b);
    ASSERT_TRUE(got);
    EXPECT_NEAR(a.distance, b.distance, 1e-9) << trial;
  }
}

using test::box_mesh;

TEST(PointShapeDistance, MeshDistanceAndCrossing) {
  const Vec3 h(0.5, 0.5, 0.5);
  const Shape mesh = Shape::triangle_mesh(box_mesh(h));
  const Shape box = Shape::box(h);
  const Pose pose;
  std::mt19937_64 rng(6);
  for (int trial = 0; trial < 300; ++trial) {
    Vec3 x = testref::random_vector(rng, -1.5, 1.5);
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

}  // namespace
}  // namespace impetus
