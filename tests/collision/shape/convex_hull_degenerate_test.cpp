// Convex hulls of degenerate and nearly degenerate point clouds: exact coplanarities, rounding,
// near-duplicates.
#include "collision/shape/convex_hull.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

#include "tests/collision/shape/hull_checks.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

using hull_test::check_hull;

// Heavily degenerate clouds (many exactly coplanar and collinear subsets) must still give valid
// hulls: grid-snapped points, lattice balls, and points on a box's surface.
TEST(ConvexHull, DegenerateCloudsStayValid) {
  std::mt19937_64 rng(77);
  std::uniform_int_distribution<int> cell(-4, 4);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 30; ++trial) {
    std::vector<Vec3> points;
    const int kind = trial % 3;
    const int n = 20 + 40 * (trial / 3);
    while (static_cast<int>(points.size()) < n) {
      if (kind == 0) {
        points.push_back(test::draw_vec3(cell, rng));
      } else if (kind == 1) {
        Vec3 p = test::draw_vec3(cell, rng);
        if (p.squaredNorm() <= 12) points.push_back(p * 0.25);
      } else {
        Vec3 p = test::draw_vec3(u, rng);
        p[trial % 3] = u(rng) > 0 ? 2 : -2;
        points.push_back((p * 8).array().round() / 8);
      }
    }
    std::optional<ConvexHull> hull = build_convex_hull(points, nullptr);
    ASSERT_TRUE(hull);
    SCOPED_TRACE("trial " + std::to_string(trial));
    check_hull(points, *hull);
    // Exactly representable input: no face may contain a vertex in its interior or hold a
    // straight angle, so each polygon's vertex count equals its number of corners.
    for (const HullFace& f : hull->faces) {
      const std::size_t m = f.vertices.size();
      for (std::size_t i = 0; i < m; ++i) {
        const Vec3& a = hull->vertices[f.vertices[i]];
        const Vec3& b = hull->vertices[f.vertices[(i + 1) % m]];
        const Vec3& c = hull->vertices[f.vertices[(i + 2) % m]];
        EXPECT_GT((b - a).cross(c - b).norm(), 0) << "straight angle in a face";
      }
    }
  }
}

// The same kinds of clouds after rounding (rotated lattices, a millimetre box far from the
// origin with points on its faces, clusters of near-duplicates): coplanarity now holds only to
// within rounding, which is where tolerance-based face merging can go wrong.
TEST(ConvexHull, RoundedDegenerateCloudsStayValid) {
  std::mt19937_64 rng(78);
  std::uniform_int_distribution<int> cell(-3, 3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::normal_distribution<double> g(0.0, 1.0);
  int accepted = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int kind = trial % 3;
    const int n = 5 + trial % 150;
    const Quat q = test::draw_quat(g, rng).normalized();
    const Vec3 offset = 100 * test::draw_vec3(u, rng);
    std::vector<Vec3> points;
    while (static_cast<int>(points.size()) < n) {
      if (kind == 0) {
        points.push_back(q * test::draw_vec3(cell, rng) + offset);
      } else if (kind == 1) {
        Vec3 p = test::draw_vec3(u, rng);
        p[trial % 3] = u(rng) > 0 ? 1 : -1;
        points.push_back(q * (1e-3 * p) + offset);
      } else if (!points.empty() && u(rng) > 0) {
        const Vec3 near = points[static_cast<std::size_t>(std::abs(u(rng)) * points.size()) %
                                 points.size()];
        points.push_back(near + 1e-11 * test::draw_vec3(u, rng));
      } else {
        points.push_back(q * test::draw_vec3(u, rng));
      }
    }
    std::optional<ConvexHull> hull = build_convex_hull(points, nullptr);
    if (!hull) continue;  // a few near-duplicate clusters are genuinely flat
    SCOPED_TRACE("trial " + std::to_string(trial));
    check_hull(points, *hull);
    ++accepted;
  }
  EXPECT_GT(accepted, 280);
}

TEST(ConvexHull, CylinderGivesQuadsAndTwoCaps) {
  const int segments = 64;
  std::vector<Vec3> points;
  for (double z : {-0.5, 0.5}) {
    for (int i = 0; i < segments; ++i) {
      const double a = 2 * 3.14159265358979323846 * i / segments;
      points.emplace_back(std::cos(a), std::sin(a), z);
    }
  }
  points.emplace_back(0, 0, 0.5);  // cap centres and an axis point: not vertices
  points.emplace_back(0, 0, -0.5);
  points.emplace_back(0, 0, 0);
  std::optional<ConvexHull> hull = build_convex_hull(points, nullptr);
  ASSERT_TRUE(hull);
  check_hull(points, *hull);
  EXPECT_EQ(hull->vertices.size(), static_cast<std::size_t>(2 * segments));
  ASSERT_EQ(hull->faces.size(), static_cast<std::size_t>(segments + 2));
  int caps = 0;
  for (const HullFace& f : hull->faces) {
    if (f.vertices.size() == static_cast<std::size_t>(segments)) {
      ++caps;
      EXPECT_NEAR(std::abs(f.normal.z()), 1.0, 1e-12);
    } else {
      EXPECT_EQ(f.vertices.size(), 4u);
    }
  }
  EXPECT_EQ(caps, 2);
}

}  // namespace
}  // namespace impetus
