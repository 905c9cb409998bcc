// Exact triangle–triangle intersection against an independent floating-point interval method
// on generic random pairs, and on exactly constructed touching / coplanar cases.
#include <gtest/gtest.h>

#include "cloth/triangle_intersection.h"
#include "cloth_test_util.h"

namespace impetus {
namespace {

using cloth_test::random_vec;

// Möller-style reference for generic pairs: intervals of both triangles on the planes' common
// line. Returns -1 when the pair is too close to a degenerate case to decide in floating point.
int reference_intersect(const Vec3 a[3], const Vec3 b[3]) {
  auto interval = [](const Vec3 t[3], const Vec3& n, double o, const Vec3& dir, double& lo, double& hi) {
    double d[3];
    for (int k = 0; k < 3; ++k) {
      d[k] = n.dot(t[k]) - o;
      if (std::abs(d[k]) < 1e-9) return false;
    }
    if ((d[0] > 0) == (d[1] > 0) && (d[1] > 0) == (d[2] > 0)) {
      lo = 1;
      hi = 0;
      return true;
    }
    // The lone vertex and its two edges cross the plane.
    int lone = (d[0] > 0) == (d[1] > 0) ? 2 : ((d[0] > 0) == (d[2] > 0) ? 1 : 0);
    double s[2];
    int m = 0;
    for (int k = 0; k < 3; ++k) {
      if (k == lone) continue;
      const double w = d[lone] / (d[lone] - d[k]);
      s[m++] = dir.dot(t[lone] + w * (t[k] - t[lone]));
    }
    lo = std::min(s[0], s[1]);
    hi = std::max(s[0], s[1]);
    return true;
  };
  const Vec3 na = (a[1] - a[0]).cross(a[2] - a[0]).normalized();
  const Vec3 nb = (b[1] - b[0]).cross(b[2] - b[0]).normalized();
  const Vec3 dir = na.cross(nb);
  if (dir.norm() < 1e-6) return -1;
  double alo, ahi, blo, bhi;
  if (!interval(a, nb, nb.dot(b[0]), dir, alo, ahi)) return -1;
  if (!interval(b, na, na.dot(a[0]), dir, blo, bhi)) return -1;
  if (alo > ahi || blo > bhi) return 0;
  const double gap = std::max(alo, blo) - std::min(ahi, bhi);
  if (std::abs(gap) < 1e-9) return -1;
  return gap < 0 ? 1 : 0;
}

TEST(TriangleIntersection, AgreesWithIntervalMethodOnGenericPairs) {
  std::mt19937_64 rng(21);
  int yes = 0, no = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    Vec3 a[3] = {random_vec(rng), random_vec(rng), random_vec(rng)};
    Vec3 b[3] = {random_vec(rng), random_vec(rng), random_vec(rng)};
    const int ref = reference_intersect(a, b);
    if (ref < 0) continue;
    const bool got = triangles_intersect(a[0], a[1], a[2], b[0], b[1], b[2]);
    ASSERT_EQ(got, ref == 1) << "trial " << trial;
    ASSERT_EQ(got, triangles_intersect(b[2], b[0], b[1], a[1], a[0], a[2])) << "symmetry, trial " << trial;
    (got ? yes : no)++;
  }
  EXPECT_GT(yes, 2000);
  EXPECT_GT(no, 2000);
}

TEST(TriangleIntersection, ExactTouchingAndCoplanarCases) {
  const Vec3 a0(0, 0, 0), a1(1, 0, 0), a2(0, 1, 0);
  // Vertex exactly on the face.
  EXPECT_TRUE(triangles_intersect(a0, a1, a2, Vec3(0.25, 0.25, 0), Vec3(0.25, 0.25, 1), Vec3(1, 1, 1)));
  // Vertex just above the face (1 ulp scale): no contact.
  EXPECT_FALSE(triangles_intersect(a0, a1, a2, Vec3(0.25, 0.25, 1e-300), Vec3(0.25, 0.25, 1), Vec3(1, 1, 1)));
  // Edge through an edge exactly (crossing point (0.5, 0.5, 0) on the hypotenuse).
  EXPECT_TRUE(triangles_intersect(a0, a1, a2, Vec3(0.5, 0.5, -1), Vec3(0.5, 0.5, 1), Vec3(2, 2, 0.5)));
  // Coplanar overlapping and coplanar disjoint.
  EXPECT_TRUE(triangles_intersect(a0, a1, a2, Vec3(0.2, 0.2, 0), Vec3(2, 0.2, 0), Vec3(0.2, 2, 0)));
  EXPECT_FALSE(triangles_intersect(a0, a1, a2, Vec3(1, 1, 0), Vec3(2, 1, 0), Vec3(1, 2, 0)));
  // Coplanar, touching at one point (a1 == shared position, different triangle).
  EXPECT_TRUE(triangles_intersect(a0, a1, a2, Vec3(1, 0, 0), Vec3(2, 0, 0), Vec3(2, 1, 0)));
  // Coplanar, one inside the other.
  EXPECT_TRUE(triangles_intersect(a0, a1, a2, Vec3(0.1, 0.1, 0), Vec3(0.2, 0.1, 0), Vec3(0.1, 0.2, 0)));
  // Parallel planes.
  EXPECT_FALSE(triangles_intersect(a0, a1, a2, Vec3(0, 0, 1e-12), Vec3(1, 0, 1e-12), Vec3(0, 1, 1e-12)));
  // An edge lying in the other triangle's plane, crossing it.
  EXPECT_TRUE(triangles_intersect(a0, a1, a2, Vec3(-1, 0.3, 0), Vec3(2, 0.3, 0), Vec3(0.5, 0.3, 1)));
  // ... and lying in the plane but outside.
  EXPECT_FALSE(triangles_intersect(a0, a1, a2, Vec3(-1, 1.3, 0), Vec3(2, 1.3, 0), Vec3(0.5, 1.3, 1)));
}

TEST(TriangleIntersection, BruteForceCountOnFoldedSheet) {
  // A 2-triangle-wide strip folded onto itself through the plane: count by hand.
  ClothMesh mesh = make_grid_cloth({4, 1}, {4, 1}, Vec3::Zero(), Quat::Identity());
  EXPECT_EQ(count_self_intersections_brute_force(mesh.vertices, mesh.triangles), 0);
  // Lift the last column through the first square: vertices with x = 2 go to x = -1.7, z = 0 ± .
  std::vector<Vec3> x = mesh.vertices;
  for (Vec3& p : x) {
    if (p.x() > 1.5) p = Vec3(-1.7, p.y(), p.y() > 0 ? 0.3 : -0.3);
  }
  EXPECT_GT(count_self_intersections_brute_force(x, mesh.triangles), 0);
}

}  // namespace
}  // namespace impetus
