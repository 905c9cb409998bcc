// triangle_distance against dense sampling: the minimum of the exact point–triangle distance
// over a fine barycentric grid on each triangle is an upper bound of the true distance within
// the grid spacing (distance to a set is 1-Lipschitz); the witnesses must lie on their triangles.
// closest_point_triangle likewise against a dense grid.
#include "collision/distance/triangle_distance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tests/collision/narrowphase/narrowphase_reference.h"

namespace impetus {
namespace {

using testref::point_triangle_distance;
using testref::uniform;

constexpr int kGrid = 48;

double max_edge(const Triangle& t) {
  return std::max({(t[1] - t[0]).norm(), (t[2] - t[1]).norm(), (t[0] - t[2]).norm()});
}

// min over grid points x of a of dist(x, b).
double sampled_distance(const Triangle& a, const Triangle& b) {
  double best = 1e300;
  for (int i = 0; i <= kGrid; ++i) {
    for (int j = 0; i + j <= kGrid; ++j) {
      const double u = static_cast<double>(i) / kGrid;
      const double v = static_cast<double>(j) / kGrid;
      const Vec3 x = a[0] + u * (a[1] - a[0]) + v * (a[2] - a[0]);
      best = std::min(best, point_triangle_distance(x, b[0], b[1], b[2]));
    }
  }
  return best;
}

void check_pair(const Triangle& a, const Triangle& b, const char* what) {
  const TriangleDistance r = triangle_distance(a, b);
  const double ref = std::min(sampled_distance(a, b), sampled_distance(b, a));
  const double spacing = std::min(max_edge(a), max_edge(b)) / kGrid;
  const double scale = max_edge(a) + max_edge(b);
  SCOPED_TRACE(what);
  // Upper: never above a distance that is attained.
  EXPECT_LE(r.distance, ref + 1e-12 * scale);
  // Lower: the grid is within `spacing` of the true minimum.
  EXPECT_GE(r.distance, ref - spacing - 1e-12 * scale);
  // Witnesses on their triangles, at the reported distance.
  EXPECT_LE(point_triangle_distance(r.point_a, a[0], a[1], a[2]), 1e-10 * scale);
  EXPECT_LE(point_triangle_distance(r.point_b, b[0], b[1], b[2]), 1e-10 * scale);
  EXPECT_NEAR((r.point_b - r.point_a).norm(), r.distance, 1e-12 * scale);
}

Triangle random_triangle(std::mt19937_64& rng, const Vec3& centre, double size) {
  Triangle t;
  for (Vec3& v : t) v = centre + testref::random_vector(rng, -size, size);
  return t;
}

Triangle moved(const Triangle& t, const Quat& q, const Vec3& shift) {
  Triangle out;
  for (int i = 0; i < 3; ++i) out[i] = q * t[i] + shift;
  return out;
}

TEST(TriangleDistance, RandomPairsMatchSampling) {
  std::mt19937_64 rng(11);
  for (int k = 0; k < 300; ++k) {
    const Triangle a = random_triangle(rng, Vec3::Zero(), 1.0);
    const Triangle b = random_triangle(rng, testref::random_vector(rng, -1.5, 1.5), 1.0);
    check_pair(a, b, "random");
  }
}

TEST(TriangleDistance, ParallelPlanesMatchSampling) {
  std::mt19937_64 rng(12);
  for (int k = 0; k < 150; ++k) {
    Triangle a;
    Triangle b;
    for (int i = 0; i < 3; ++i) {
      a[i] = testref::random_vector(rng, -1, 1);
      a[i].z() = 0;
      b[i] = testref::random_vector(rng, -1, 1);
      b[i].z() = 0.3;
    }
    const Quat q = testref::random_rotation(rng);
    const Vec3 shift = testref::random_vector(rng, -1, 1);
    check_pair(moved(a, q, shift), moved(b, q, shift), "parallel");
    // Never closer than the planes are.
    EXPECT_GE(triangle_distance(a, b).distance, 0.3 - 1e-12);
  }
}

TEST(TriangleDistance, CoplanarMatchSampling) {
  std::mt19937_64 rng(13);
  int overlapping = 0;
  for (int k = 0; k < 150; ++k) {
    Triangle a;
    Triangle b;
    const double dx = uniform(rng, -2, 2);
    for (int i = 0; i < 3; ++i) {
      a[i] = testref::random_vector(rng, -1, 1);
      a[i].z() = 0;
      b[i] = testref::random_vector(rng, -1, 1) + Vec3(dx, 0, 0);
      b[i].z() = 0;
    }
    const Quat q = testref::random_rotation(rng);
    const Vec3 shift = testref::random_vector(rng, -1, 1);
    const Triangle wa = moved(a, q, shift);
    const Triangle wb = moved(b, q, shift);
    check_pair(wa, wb, "coplanar");
    if (triangle_distance(wa, wb).distance < 1e-12) ++overlapping;
  }
  EXPECT_GT(overlapping, 10);  // both regimes covered
}

TEST(TriangleDistance, TouchingAtAPointIsZero) {
  std::mt19937_64 rng(14);
  for (int k = 0; k < 100; ++k) {
    const Triangle a = random_triangle(rng, Vec3::Zero(), 1.0);
    // b's first vertex on a point of a (interior or edge), the rest on one side of a's plane.
    const double u = uniform(rng, 0, 1);
    const double v = uniform(rng, 0, 1 - u);
    const Vec3 x = a[0] + u * (a[1] - a[0]) + v * (a[2] - a[0]);
    const Vec3 n = (a[1] - a[0]).cross(a[2] - a[0]).normalized();
    Triangle b;
    b[0] = x;
    for (int i = 1; i < 3; ++i) {
      b[i] = x + testref::random_vector(rng, -1, 1);
      b[i] += (0.05 + std::abs(n.dot(b[i] - x))) * n - n.dot(b[i] - x) * n;
    }
    const TriangleDistance r = triangle_distance(a, b);
    EXPECT_LE(r.distance, 1e-12);
    check_pair(a, b, "touching");
  }
}

TEST(TriangleDistance, CrossingIsZeroAndFlagged) {
  std::mt19937_64 rng(15);
  for (int k = 0; k < 100; ++k) {
    const Triangle a = random_triangle(rng, Vec3::Zero(), 1.0);
    // A common interior point x; b through x, not in a's plane.
    const Vec3 x = (a[0] + a[1] + a[2]) / 3.0;
    const Vec3 n = (a[1] - a[0]).cross(a[2] - a[0]).normalized();
    Triangle b;
    b[0] = x + 0.6 * n + testref::random_vector(rng, -0.2, 0.2);
    b[1] = x - 0.6 * n + testref::random_vector(rng, -0.2, 0.2);
    // b[2] so that x = (b0 + b1 + b2) / 3: x is b's centroid.
    b[2] = 3 * x - b[0] - b[1];
    const TriangleDistance r = triangle_distance(a, b);
    EXPECT_TRUE(r.crossing);
    EXPECT_LE(r.distance, 1e-12);
    check_pair(a, b, "crossing");
  }
}

TEST(TriangleDistance, SymmetricUnderSwap) {
  std::mt19937_64 rng(16);
  for (int k = 0; k < 200; ++k) {
    const Triangle a = random_triangle(rng, Vec3::Zero(), 1.0);
    const Triangle b = random_triangle(rng, testref::random_vector(rng, -1.5, 1.5), 1.0);
    EXPECT_NEAR(triangle_distance(a, b).distance, triangle_distance(b, a).distance, 1e-12);
  }
}

// closest_point_triangle: the point lies on the triangle at its barycentric weights, and its
// distance is within the grid spacing of the minimum over a dense barycentric grid (never above
// it). Random, sliver (collinear) and point triangles.
void check_point_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                          const char* what, int trial) {
  const PointTriangleClosest cl = closest_point_triangle(p, a, b, c);
  EXPECT_NEAR((cl.weights[0] * a + cl.weights[1] * b + cl.weights[2] * c - cl.point).norm(), 0, 1e-12)
      << what << " " << trial;
  EXPECT_NEAR(cl.weights.sum(), 1.0, 1e-12) << what << " " << trial;
  EXPECT_GE(cl.weights.minCoeff(), -1e-12) << what << " " << trial;
  EXPECT_NEAR(cl.distance, (p - cl.point).norm(), 1e-15) << what << " " << trial;
  const int n = 200;
  double best = 1e300;
  for (int i = 0; i <= n; ++i) {
    for (int j = 0; i + j <= n; ++j) {
      const double u = static_cast<double>(i) / n, v = static_cast<double>(j) / n;
      best = std::min(best, (p - (a + u * (b - a) + v * (c - a))).norm());
    }
  }
  const double h = std::max({(b - a).norm(), (c - a).norm()}) / n;
  EXPECT_LE(cl.distance, best + 1e-12) << what << " " << trial;
  EXPECT_GE(cl.distance, best - 2 * h) << what << " " << trial;
}

TEST(PointTriangle, MatchesDenseSampling) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 300; ++trial) {
    const Vec3 a = testref::random_vector(rng, -1, 1), b = testref::random_vector(rng, -1, 1);
    const Vec3 c = testref::random_vector(rng, -1, 1);
    check_point_triangle(testref::random_vector(rng, -2, 2), a, b, c, "random", trial);
  }
}

TEST(PointTriangle, DegenerateTrianglesMatchDenseSampling) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 100; ++trial) {
    const Vec3 a = testref::random_vector(rng, -1, 1), b = testref::random_vector(rng, -1, 1);
    const Vec3 p = testref::random_vector(rng, -2, 2);
    // Sliver: c on the line ab, inside or beyond the segment; point: a = b = c.
    check_point_triangle(p, a, b, a + uniform(rng, -0.5, 1.5) * (b - a), "sliver", trial);
    check_point_triangle(p, a, a, a, "point", trial);
  }
}

}  // namespace
}  // namespace impetus
