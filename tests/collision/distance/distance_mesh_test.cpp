// mesh_signed_distance (through signed_distance) against brute force over all triangle pairs.
// Each pair's signed distance is computed independently of the engine: the separating-axis
// maximum over the pair's candidate axes (face normals, edge × edge, in-plane edge normals),
// exact when the triangles overlap (it is then −depth); when it is positive the triangles are
// apart and their distance is the minimum over vertex–triangle distances and edge–edge
// distances (the latter by ternary search of a convex function).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "collision/distance/distance.h"
#include "tests/collision/narrowphase/narrowphase_reference.h"

namespace impetus {
namespace {

using Tri = std::array<Vec3, 3>;

std::vector<Tri> world_triangles(const TriangleMesh& mesh, const Pose& pose) {
  std::vector<Tri> out;
  for (const auto& t : mesh.triangles) {
    out.push_back({pose.apply(mesh.vertices[t[0]]), pose.apply(mesh.vertices[t[1]]),
                   pose.apply(mesh.vertices[t[2]])});
  }
  return out;
}

// Largest gap min_b u·x − max_a u·x over the candidate axes (both signs).
double sat_gap(const Tri& a, const Tri& b) {
  std::vector<Vec3> axes;
  const Vec3 na = (a[1] - a[0]).cross(a[2] - a[0]);
  const Vec3 nb = (b[1] - b[0]).cross(b[2] - b[0]);
  axes.push_back(na);
  axes.push_back(nb);
  for (int i = 0; i < 3; ++i) {
    const Vec3 ea = a[(i + 1) % 3] - a[i];
    const Vec3 eb = b[(i + 1) % 3] - b[i];
    axes.push_back(na.cross(ea));
    axes.push_back(nb.cross(eb));
    for (int j = 0; j < 3; ++j) axes.push_back(ea.cross(b[(j + 1) % 3] - b[j]));
  }
  double best = -1e300;
  for (const Vec3& axis : axes) {
    if (axis.squaredNorm() < 1e-24) continue;
    const Vec3 u = axis.normalized();
    for (const Vec3& s : {u, Vec3(-u)}) {
      double max_a = -1e300;
      double min_b = 1e300;
      for (const Vec3& v : a) max_a = std::max(max_a, s.dot(v));
      for (const Vec3& v : b) min_b = std::min(min_b, s.dot(v));
      best = std::max(best, min_b - max_a);
    }
  }
  return best;
}

// Distance of segments by ternary search on s of the (convex) point–segment distance.
double segment_distance(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1) {
  auto point_segment = [&](double s) {
    const Vec3 x = p0 + s * (p1 - p0);
    const Vec3 d = q1 - q0;
    const double t = std::clamp((x - q0).dot(d) / d.squaredNorm(), 0.0, 1.0);
    return (x - (q0 + t * d)).norm();
  };
  double lo = 0;
  double hi = 1;
  for (int k = 0; k < 200; ++k) {
    const double m1 = lo + (hi - lo) / 3;
    const double m2 = hi - (hi - lo) / 3;
    if (point_segment(m1) < point_segment(m2)) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  return std::min({point_segment(0.5 * (lo + hi)), point_segment(0), point_segment(1)});
}

double apart_distance(const Tri& a, const Tri& b) {
  double best = 1e300;
  for (int i = 0; i < 3; ++i) {
    best = std::min(best, testref::point_triangle_distance(a[i], b[0], b[1], b[2]));
    best = std::min(best, testref::point_triangle_distance(b[i], a[0], a[1], a[2]));
    for (int j = 0; j < 3; ++j) {
      best = std::min(best, segment_distance(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3]));
    }
  }
  return best;
}

// Minimum over all triangle pairs of their signed distance.
double brute_force(const TriangleMesh& ma, const Pose& pa, const TriangleMesh& mb,
                   const Pose& pb) {
  const std::vector<Tri> ta = world_triangles(ma, pa);
  const std::vector<Tri> tb = world_triangles(mb, pb);
  double best = 1e300;
  for (const Tri& a : ta) {
    for (const Tri& b : tb) {
      const double gap = sat_gap(a, b);
      if (gap >= best) continue;  // the axis gap is a lower bound of the distance
      best = std::min(best, gap <= 0 ? gap : apart_distance(a, b));
    }
  }
  return best;
}

// Convex closed mesh: x inside ⇔ behind every face plane.
bool inside_convex_mesh(const TriangleMesh& mesh, const Pose& pose, const Vec3& x) {
  for (const Tri& t : world_triangles(mesh, pose)) {
    if ((t[1] - t[0]).cross(t[2] - t[0]).dot(x - t[0]) > 0) return false;
  }
  return true;
}

void check(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, double expected,
           const std::string& what) {
  SCOPED_TRACE(what);
  const std::optional<DistanceResult> r = signed_distance(a, pa, b, pb);
  ASSERT_TRUE(r.has_value());
  EXPECT_NEAR(r->distance, expected, 1e-9);
  EXPECT_NEAR(r->normal.norm(), 1.0, 1e-9);
  EXPECT_LE((r->point_b - r->point_a - r->distance * r->normal).norm(), 1e-9);
  // Swapped order: the same value.
  const std::optional<DistanceResult> s = signed_distance(b, pb, a, pa);
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(s->distance, expected, 1e-9);
}

TEST(MeshDistance, ClosedMeshesMatchBruteForce) {
  std::mt19937_64 rng(21);
  auto big = testref::sphere_mesh(0.6, 2);    // 128 triangles
  auto small = testref::sphere_mesh(0.25, 1);  // 32 triangles
  const Shape sa = Shape::triangle_mesh(big);
  const Shape sb = Shape::triangle_mesh(small);
  int separated = 0;
  int crossing = 0;
  int enclosed = 0;
  for (int k = 0; k < 60; ++k) {
    Pose pa{testref::random_vector(rng, -1, 1), testref::random_rotation(rng)};
    const Vec3 dir = testref::random_vector(rng, -1, 1).normalized();
    Pose pb{pa.position + dir * testref::uniform(rng, 0.0, 1.2), testref::random_rotation(rng)};
    double expected = brute_force(*big, pa, *small, pb);
    if (expected > 0) {
      // Enclosed without touching: the small sphere's centre inside the big one.
      if (inside_convex_mesh(*big, pa, pb.position)) {
        expected = -expected;
        ++enclosed;
      } else {
        ++separated;
      }
    } else {
      ++crossing;
    }
    check(sa, pa, sb, pb, expected, "closed pair " + std::to_string(k));
  }
  EXPECT_GT(separated, 5);
  EXPECT_GT(crossing, 5);
  EXPECT_GT(enclosed, 2);
}

TEST(MeshDistance, OpenMeshesMatchBruteForce) {
  std::mt19937_64 rng(22);
  auto terrain = testref::terrain_mesh(rng, 5, 0.6, 0.15);  // 50 triangles, open
  auto ball = testref::sphere_mesh(0.3, 1);
  const Shape st = Shape::triangle_mesh(terrain);
  const Shape sb = Shape::triangle_mesh(ball);
  int separated = 0;
  int crossing = 0;
  for (int k = 0; k < 60; ++k) {
    Pose pa{testref::random_vector(rng, -0.5, 0.5), testref::random_rotation(rng)};
    const bool two_terrains = k % 2 == 0;
    Pose pb{pa.position + testref::random_vector(rng, -0.8, 0.8), testref::random_rotation(rng)};
    const TriangleMesh& other = two_terrains ? *terrain : *ball;
    const double expected = brute_force(*terrain, pa, other, pb);
    // No sign flip: the terrain is open, and too large (half-width 0.6) to fit inside the
    // ball (radius 0.3) without crossing it.
    (expected > 0 ? separated : crossing)++;
    check(st, pa, two_terrains ? st : sb, pb, expected,
          std::string(two_terrains ? "terrain-terrain " : "terrain-ball ") + std::to_string(k));
  }
  EXPECT_GT(separated, 5);
  EXPECT_GT(crossing, 5);
}

TEST(MeshDistance, NearlyTouchingParallelFaces) {
  // Two flat (unbumped) terrains, parallel, offset along their normal by a small gap: the
  // closest pairs are face–face, where the closed form and GJK must agree with the gap.
  std::mt19937_64 rng(23);
  auto flat = testref::terrain_mesh(rng, 4, 0.5, 0.0);
  const Shape s = Shape::triangle_mesh(flat);
  for (double gap : {1e-3, 1e-6, 0.2}) {
    const Quat q = testref::random_rotation(rng);
    const Pose pa{Vec3(0.1, -0.2, 0.3), q};
    const Pose pb{pa.position + q * Vec3(0.13, 0.07, gap), q};
    check(s, pa, s, pb, gap, "flat gap " + std::to_string(gap));
  }
}

}  // namespace
}  // namespace impetus
