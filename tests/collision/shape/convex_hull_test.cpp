#include "collision/shape/convex_hull.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <utility>

#include "tests/collision/shape/hull_checks.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

using hull_test::check_hull;
using hull_test::expect_box;
using hull_test::find_point;
using hull_test::random_cloud;

TEST(ConvexHull, RandomCloudsSatisfyHullInvariants) {
  std::mt19937_64 rng(1234);
  int cases = 0;
  for (int kind = 0; kind < 4; ++kind) {
    for (int n : {4, 5, 9, 30, 200, 600}) {
      std::vector<Vec3> points = random_cloud(rng, kind, n);
      std::string error;
      std::optional<ConvexHull> hull = build_convex_hull(points, &error);
      ASSERT_TRUE(hull) << error;
      SCOPED_TRACE("kind " + std::to_string(kind) + " n " + std::to_string(n));
      check_hull(points, *hull);
      if (kind == 2) {
        EXPECT_EQ(hull->vertices.size(), points.size());  // all extreme
      }
      ++cases;
    }
  }
  EXPECT_EQ(cases, 24);
}

// Brute force: a triple is a facet when every other point is strictly on one side of its plane
// (points in general position, so no ties). Its vertices are the hull vertices.
TEST(ConvexHull, MatchesBruteForceFacetsInGeneralPosition) {
  std::mt19937_64 rng(99);
  int interior = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const int n = 12 + 5 * trial;
    std::vector<Vec3> points = random_cloud(rng, trial % 2, n);
    std::set<int> reference_vertices;
    int facets = 0;
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        for (int k = j + 1; k < n; ++k) {
          const Vec3 nrm = (points[j] - points[i]).cross(points[k] - points[i]);
          int above = 0, below = 0;
          for (int m = 0; m < n; ++m) {
            if (m == i || m == j || m == k) continue;
            (nrm.dot(points[m] - points[i]) > 0 ? above : below) += 1;
          }
          if (above == 0 || below == 0) {
            ++facets;
            reference_vertices.insert({i, j, k});
          }
        }
      }
    }
    std::optional<ConvexHull> hull = build_convex_hull(points, nullptr);
    ASSERT_TRUE(hull);
    check_hull(points, *hull);
    std::set<int> got;
    for (const Vec3& v : hull->vertices) got.insert(find_point(points, v));
    EXPECT_EQ(got, reference_vertices);
    EXPECT_EQ(static_cast<int>(hull->faces.size()), facets);  // all triangles: nothing coplanar
    EXPECT_EQ(static_cast<int>(hull->triangles.size()), facets);
    interior += n - static_cast<int>(reference_vertices.size());
  }
  EXPECT_GT(interior, 0);  // the reference did drop points
}

TEST(ConvexHull, CubeWithInteriorFaceEdgeAndDuplicatePoints) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<Vec3> points;
    for (int k = 0; k < 8; ++k) points.emplace_back(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1);
    for (int i = 0; i < 100; ++i) {
      points.push_back(0.99 * test::draw_vec3(u, rng));  // interior
      Vec3 f = test::draw_vec3(u, rng);                  // on a face
      f[i % 3] = (i % 2) ? 1.0 : -1.0;
      points.push_back(f);
      Vec3 e = test::draw_vec3(u, rng);                  // on an edge
      e.y() = e.y() > 0 ? 1.0 : -1.0;
      e.z() = e.z() > 0 ? 1.0 : -1.0;
      points.emplace_back(e[i % 3], e[(i + 1) % 3], e[(i + 2) % 3]);
    }
    points.push_back(points[3]);  // duplicates of corners
    points.push_back(points[5]);
    std::shuffle(points.begin(), points.end(), rng);
    std::optional<ConvexHull> hull = build_convex_hull(points, nullptr);
    ASSERT_TRUE(hull);
    check_hull(points, *hull);
    expect_box(*hull, Vec3(1, 1, 1));
  }
}

TEST(ConvexHull, IntegerLatticeGivesItsBox) {
  std::vector<Vec3> points;
  for (int i = 0; i <= 4; ++i)
    for (int j = 0; j <= 5; ++j)
      for (int k = 0; k <= 3; ++k) points.emplace_back(i - 2.0, j - 2.5, k - 1.5);
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 5; ++trial) {
    std::shuffle(points.begin(), points.end(), rng);
    std::optional<ConvexHull> hull = build_convex_hull(points, nullptr);
    ASSERT_TRUE(hull);
    check_hull(points, *hull);
    expect_box(*hull, Vec3(2, 2.5, 1.5));
  }
}

// Rotated and shifted, face points are no longer exactly coplanar (rounding): the merge
// tolerance must still produce 6 quads.
TEST(ConvexHull, RotatedCubeWithRoundedFacePointsMergesIntoQuads) {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Quat q = Quat(0.3, -0.5, 0.7, 0.2).normalized();
  const Vec3 shift(10.25, -3.5, 7.0);
  std::vector<Vec3> local;
  for (int k = 0; k < 8; ++k) local.emplace_back(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1);
  for (int i = 0; i < 300; ++i) {
    Vec3 f = test::draw_vec3(u, rng);
    f[i % 3] = (i % 2) ? 1.0 : -1.0;
    local.push_back(f);
  }
  std::vector<Vec3> points;
  for (const Vec3& p : local) points.push_back(q * p + shift);
  std::optional<ConvexHull> hull = build_convex_hull(points, nullptr);
  ASSERT_TRUE(hull);
  check_hull(points, *hull);
  EXPECT_EQ(hull->vertices.size(), 8u);
  EXPECT_EQ(hull->faces.size(), 6u);
  for (const Vec3& v : hull->vertices) {
    const Vec3 l = q.conjugate() * (v - shift);
    EXPECT_NEAR(l.cwiseAbs().minCoeff(), 1.0, 1e-12);  // a corner
  }
}

TEST(ConvexHull, PlatonicSolids) {
  const double phi = (1 + std::sqrt(5.0)) / 2;
  std::vector<Vec3> octa = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  std::vector<Vec3> icosa, dodeca;
  for (int a : {-1, 1}) {
    for (int b : {-1, 1}) {
      icosa.emplace_back(0, a, b * phi);
      icosa.emplace_back(a, b * phi, 0);
      icosa.emplace_back(b * phi, 0, a);
      dodeca.emplace_back(0, a / phi, b * phi);
      dodeca.emplace_back(a / phi, b * phi, 0);
      dodeca.emplace_back(b * phi, 0, a / phi);
      for (int c : {-1, 1}) dodeca.emplace_back(a, b, c);
    }
  }
  struct Case {
    std::vector<Vec3>* points;
    std::size_t v, e, f, face_size;
  };
  for (const Case& c : {Case{&octa, 6, 12, 8, 3}, Case{&icosa, 12, 30, 20, 3},
                        Case{&dodeca, 20, 30, 12, 5}}) {
    std::optional<ConvexHull> hull = build_convex_hull(*c.points, nullptr);
    ASSERT_TRUE(hull);
    check_hull(*c.points, *hull);
    EXPECT_EQ(hull->vertices.size(), c.v);
    EXPECT_EQ(hull->edges.size(), c.e);
    EXPECT_EQ(hull->faces.size(), c.f);
    for (const HullFace& f : hull->faces) EXPECT_EQ(f.vertices.size(), c.face_size);
  }
}

TEST(ConvexHull, RejectsDegenerateInput) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto expect_rejected = [](const std::vector<Vec3>& points, const std::string& word) {
    std::string error;
    EXPECT_FALSE(build_convex_hull(points, &error));
    EXPECT_NE(error.find(word), std::string::npos) << error;
    EXPECT_FALSE(build_convex_hull(points, nullptr));  // no error sink is fine too
  };
  std::vector<Vec3> tetra = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  expect_rejected({tetra[0], tetra[1], tetra[2]}, "at least 4");
  std::vector<Vec3> bad = tetra;
  bad[2].y() = std::nan("");
  expect_rejected(bad, "point 2 is not finite");
  bad = tetra;
  bad[3].z() = HUGE_VAL;
  expect_rejected(bad, "point 3 is not finite");
  expect_rejected(std::vector<Vec3>(6, Vec3(1, 2, 3)), "coincide");
  std::vector<Vec3> line, plane, thin;
  for (int i = 0; i < 50; ++i) {
    double t = u(rng);
    line.push_back(Vec3(1, 2, 3) + t * Vec3(0.3, -0.2, 0.9));
    Vec3 p = test::draw_vec3(u, rng);
    p.z() = 0;
    plane.push_back(p);
    Vec3 q = test::draw_vec3(u, rng);
    q.z() *= 1e-9;
    thin.push_back(q);
  }
  expect_rejected(line, "collinear");
  expect_rejected(plane, "coplanar");
  expect_rejected(thin, "coplanar");
  // A thin but real slab is accepted.
  for (Vec3& p : thin) p.z() *= 1e6;
  std::optional<ConvexHull> hull = build_convex_hull(thin, nullptr);
  ASSERT_TRUE(hull);
  check_hull(thin, *hull);
}

TEST(ConvexHull, SupportIndexIsTheBruteForceArgmax) {
  std::mt19937_64 rng(17);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> points = random_cloud(rng, 1, 300);
  ConvexHull hull = *build_convex_hull(points, nullptr);
  for (int trial = 0; trial < 500; ++trial) {
    const Vec3 d = test::draw_vec3(g, rng);
    double best = -1e300;
    for (const Vec3& p : points) best = std::max(best, d.dot(p));
    const int i = hull.support_index(d);
    EXPECT_EQ(d.dot(hull.vertices[i]), best);
    EXPECT_EQ(hull.support(d), hull.vertices[i]);
  }
  // Ties break to the lowest index: +x ties the four vertices of the box's +x face.
  ConvexHull box = box_hull(Vec3(1, 2, 3));
  int lowest = -1;
  for (int i = 7; i >= 0; --i) {
    if (box.vertices[i].x() > 0) lowest = i;
  }
  EXPECT_EQ(box.support_index(Vec3(1, 0, 0)), lowest);
  EXPECT_EQ(box.support(Vec3(1, 1, 1)), Vec3(1, 2, 3));
  EXPECT_EQ(box.support(Vec3(-1, 1, -1)), Vec3(-1, 2, -3));
}

TEST(ConvexHull, BoxHullIsAValidBox) {
  const Vec3 half(0.5, 1.5, 2.0);
  ConvexHull box = box_hull(half);
  std::vector<Vec3> corners = box.vertices;
  check_hull(corners, box);
  expect_box(box, half);
  // The built hull of the same corners describes the same solid.
  ConvexHull built = *build_convex_hull(corners, nullptr);
  expect_box(built, half);
}

TEST(ConvexHull, DeterministicAndTranslationInvariant) {
  std::mt19937_64 rng(21);
  std::vector<Vec3> points = random_cloud(rng, 0, 400);
  // Coordinates on a 2^-20 grid, so that the shift below is exact.
  for (Vec3& p : points) p = (p * 1048576.0).array().round() / 1048576.0;
  ConvexHull a = *build_convex_hull(points, nullptr);
  ConvexHull b = *build_convex_hull(points, nullptr);
  ASSERT_EQ(a.vertices, b.vertices);
  ASSERT_EQ(a.triangles, b.triangles);
  ASSERT_EQ(a.edges, b.edges);
  // Shifting by a power of two keeps coordinates exact, so the hull must be the same one.
  const Vec3 shift(1024, -2048, 512);
  std::vector<Vec3> moved;
  for (const Vec3& p : points) moved.push_back(p + shift);
  ConvexHull c = *build_convex_hull(moved, nullptr);
  ASSERT_EQ(c.vertices.size(), a.vertices.size());
  std::set<int> sa, sc;
  for (const Vec3& v : a.vertices) sa.insert(find_point(points, v));
  for (const Vec3& v : c.vertices) sc.insert(find_point(moved, v));
  EXPECT_EQ(sa, sc);
}

}  // namespace
}  // namespace impetus
