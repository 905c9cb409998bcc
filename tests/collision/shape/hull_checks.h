#pragma once
// Shared checks for the convex hull tests: every property a valid hull must have, verified from
// first principles (no use of the hull code's own helpers).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "collision/shape/convex_hull.h"
#include "tests/random_draws.h"

namespace impetus::hull_test {

inline double extent_of(const std::vector<Vec3>& points) {
  Vec3 lo = points[0], hi = points[0];
  for (const Vec3& p : points) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  return (hi - lo).norm();
}

// Index of the input point equal to v, or -1.
inline int find_point(const std::vector<Vec3>& points, const Vec3& v) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i] == v) return static_cast<int>(i);
  }
  return -1;
}

// Checks that the directed edges of the loops form a closed, consistently oriented surface and
// returns the number of undirected edges.
inline int check_closed_surface(const std::vector<std::vector<int>>& loops) {
  std::set<std::pair<int, int>> directed;
  for (const std::vector<int>& loop : loops) {
    for (std::size_t i = 0; i < loop.size(); ++i) {
      std::pair<int, int> e{loop[i], loop[(i + 1) % loop.size()]};
      EXPECT_NE(e.first, e.second);
      EXPECT_TRUE(directed.insert(e).second) << "directed edge used twice";
    }
  }
  for (const std::pair<int, int>& e : directed) {
    EXPECT_TRUE(directed.count({e.second, e.first})) << "edge without its opposite";
  }
  return static_cast<int>(directed.size() / 2);
}

// Every property a valid hull of `points` must have, checked from first principles.
inline void check_hull(const std::vector<Vec3>& points, const ConvexHull& hull) {
  const double extent = extent_of(points);
  const double tol = 1e-9 * extent;
  const int v_count = static_cast<int>(hull.vertices.size());
  ASSERT_GE(v_count, 4);
  ASSERT_GE(hull.faces.size(), 4u);

  // Hull vertices are distinct input points.
  std::set<int> sources;
  for (const Vec3& v : hull.vertices) {
    int i = find_point(points, v);
    ASSERT_GE(i, 0) << "hull vertex is not an input point";
    EXPECT_TRUE(sources.insert(i).second) << "hull vertex repeated";
  }

  Vec3 inside = Vec3::Zero();
  for (const Vec3& v : hull.vertices) inside += v;
  inside /= v_count;

  std::vector<std::vector<int>> loops;
  std::vector<int> used(v_count, 0);
  for (const HullFace& f : hull.faces) {
    ASSERT_GE(f.vertices.size(), 3u);
    EXPECT_NEAR(f.normal.norm(), 1.0, 1e-12);
    // Every input point on or below every face plane.
    for (const Vec3& p : points) ASSERT_LE(f.normal.dot(p), f.offset + tol);
    // Face vertices on the plane; the loop's own vector area agrees with the normal (CCW seen
    // from outside); the normal points away from an interior point. The area is summed about
    // the face's centroid: about the origin, a 1e-8 m² face 100 m away loses its direction to
    // rounding (1e-9 off in the cosine).
    Vec3 centroid = Vec3::Zero();
    for (std::size_t i = 0; i < f.vertices.size(); ++i) {
      const int a = f.vertices[i];
      ASSERT_GE(a, 0);
      ASSERT_LT(a, v_count);
      used[a] = 1;
      EXPECT_NEAR(f.normal.dot(hull.vertices[a]), f.offset, 1e-6 * extent);
      centroid += hull.vertices[a];
    }
    centroid /= static_cast<double>(f.vertices.size());
    Vec3 area = Vec3::Zero();
    for (std::size_t i = 0; i < f.vertices.size(); ++i) {
      const int a = f.vertices[i], b = f.vertices[(i + 1) % f.vertices.size()];
      area += (hull.vertices[a] - centroid).cross(hull.vertices[b] - centroid);
    }
    EXPECT_GT(area.normalized().dot(f.normal), 1 - 1e-9);
    EXPECT_GT(f.normal.dot(centroid - inside), 0);
    // Convex loop: consecutive turns all agree with the normal.
    for (std::size_t i = 0; i < f.vertices.size(); ++i) {
      const std::size_t n = f.vertices.size();
      const Vec3& a = hull.vertices[f.vertices[i]];
      const Vec3& b = hull.vertices[f.vertices[(i + 1) % n]];
      const Vec3& c = hull.vertices[f.vertices[(i + 2) % n]];
      EXPECT_GE((b - a).cross(c - b).dot(f.normal), -1e-9 * extent * extent);
    }
    loops.push_back(f.vertices);
  }
  for (int u : used) EXPECT_EQ(u, 1) << "vertex on no face";

  // Polygonal faces: closed surface, Euler characteristic 2, `edges` = the faces' edges.
  const int e_count = check_closed_surface(loops);
  EXPECT_EQ(v_count - e_count + static_cast<int>(hull.faces.size()), 2);
  std::set<std::array<int, 2>> expected_edges;
  for (const std::vector<int>& loop : loops) {
    for (std::size_t i = 0; i < loop.size(); ++i) {
      int a = loop[i], b = loop[(i + 1) % loop.size()];
      expected_edges.insert({std::min(a, b), std::max(a, b)});
    }
  }
  ASSERT_EQ(hull.edges.size(), expected_edges.size());
  for (std::size_t i = 0; i < hull.edges.size(); ++i) {
    EXPECT_LT(hull.edges[i][0], hull.edges[i][1]);
    if (i > 0) {
      EXPECT_LT(hull.edges[i - 1], hull.edges[i]);
    }
    EXPECT_TRUE(expected_edges.count(hull.edges[i]));
  }

  // Triangulation: closed, Euler characteristic 2, outward.
  std::vector<std::vector<int>> tris;
  for (const std::array<int, 3>& t : hull.triangles) {
    tris.push_back({t[0], t[1], t[2]});
    const Vec3 n = (hull.vertices[t[1]] - hull.vertices[t[0]])
                       .cross(hull.vertices[t[2]] - hull.vertices[t[0]]);
    // Fan triangles over near-duplicate vertices are slivers whose orientation is rounding
    // noise; a genuinely flipped triangle would be off by its full area times the depth.
    EXPECT_GE(n.dot(hull.vertices[t[0]] - inside), -1e-9 * extent * extent * extent);
  }
  const int te = check_closed_surface(tris);
  EXPECT_EQ(v_count - te + static_cast<int>(hull.triangles.size()), 2);
}

// Random clouds: 0 cube, 1 ball, 2 sphere surface, 3 flat-ish Gaussian; randomly rotated and
// shifted.
inline std::vector<Vec3> random_cloud(std::mt19937_64& rng, int kind, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> points;
  const Quat q = test::draw_quat(g, rng).normalized();
  const Vec3 offset = test::draw_vec3(u, rng) * 100;
  while (static_cast<int>(points.size()) < n) {
    Vec3 p;
    switch (kind) {
      case 0: p = test::draw_vec3(u, rng); break;                                 // cube
      case 1: p = test::draw_vec3(u, rng); if (p.norm() > 1) continue; break;     // ball
      case 2: p = test::draw_vec3(g, rng).normalized(); break;                    // sphere surface
      default: p = test::draw_vec3(g, rng).cwiseProduct(Vec3(3, 0.5, 0.05)); break;  // flat-ish
    }
    points.push_back(q * p + offset);
  }
  return points;
}

// The hull must be exactly the axis-aligned box with these half extents.
inline void expect_box(const ConvexHull& hull, const Vec3& half) {
  ASSERT_EQ(hull.vertices.size(), 8u);
  ASSERT_EQ(hull.faces.size(), 6u);
  EXPECT_EQ(hull.edges.size(), 12u);
  EXPECT_EQ(hull.triangles.size(), 12u);
  for (const Vec3& v : hull.vertices) {
    for (int k = 0; k < 3; ++k) EXPECT_EQ(std::abs(v[k]), half[k]);
  }
  std::set<std::pair<int, int>> normals;
  for (const HullFace& f : hull.faces) {
    EXPECT_EQ(f.vertices.size(), 4u);
    int axis = 0;
    f.normal.cwiseAbs().maxCoeff(&axis);
    EXPECT_NEAR(std::abs(f.normal[axis]), 1.0, 1e-12);
    EXPECT_NEAR(f.offset, half[axis], 1e-12);
    normals.insert({axis, f.normal[axis] > 0 ? 1 : -1});
  }
  EXPECT_EQ(normals.size(), 6u);
}

}  // namespace impetus::hull_test
