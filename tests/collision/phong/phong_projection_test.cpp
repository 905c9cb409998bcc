// Phong projection onto one triangle (paper 2, §V.B): flat triangles against the orthogonal
// projection, symmetric configurations against their closed forms, and invariances the
// interpolation must have (vertex values, shared edges, rigid motions / tangent-basis choice).
#include "collision/phong/phong_projection.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

#include "tests/random_draws.h"

namespace impetus {
namespace {

constexpr double kTol = 1e-9;

TEST(PhongProjection, FlatTriangleGivesOrthogonalProjection) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int inside = 0, outside = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const std::array<Vec3, 3> q = {test::draw_vec3(u, rng), test::draw_vec3(u, rng),
                                   test::draw_vec3(u, rng)};
    const Vec3 cross = (q[1] - q[0]).cross(q[2] - q[0]);
    if (cross.norm() < 0.2) continue;
    const Vec3 n = cross.normalized();
    const PhongTriangle tri(q, {n, n, n});
    const Vec3 o = test::draw_vec3(u, rng);
    // Closed form: foot of the perpendicular and its barycentric coordinates (areas).
    const Vec3 foot = o - n.dot(o - q[0]) * n;
    Vec3 lambda;
    for (int i = 0; i < 3; ++i) {
      const Vec3& b = q[(i + 1) % 3];
      const Vec3& c = q[(i + 2) % 3];
      lambda[i] = (c - b).cross(foot - b).dot(n) / cross.norm();
    }
    std::optional<PhongHit> hit = tri.project(o, 64, kTol);
    if (lambda.minCoeff() > 1e-6) {
      ++inside;
      ASSERT_TRUE(hit.has_value()) << "trial " << trial;
      EXPECT_LT((hit->point - foot).norm(), 1e-8);
      EXPECT_LT((hit->lambda - lambda).norm(), 1e-7);
      EXPECT_LT((hit->normal - n).norm(), 1e-12);
    } else if (lambda.minCoeff() < -1e-6) {
      ++outside;
      EXPECT_FALSE(hit.has_value()) << "trial " << trial;
    }
  }
  EXPECT_GT(inside, 20);
  EXPECT_GT(outside, 20);
}

TEST(PhongProjection, InterpolatedNormalEqualsVertexNormalsAtVertices) {
  const std::array<Vec3, 3> q = {Vec3(0, 0, 0), Vec3(1, 0, 0.1), Vec3(0.2, 1, -0.1)};
  const std::array<Vec3, 3> n = {Vec3(-0.3, -0.2, 1).normalized(), Vec3(0.4, -0.1, 1).normalized(),
                                 Vec3(0.1, 0.5, 1).normalized()};
  const PhongTriangle tri(q, n);
  for (int i = 0; i < 3; ++i) {
    Vec3 lambda = Vec3::Zero();
    lambda[i] = 1;
    EXPECT_LT((tri.normal(lambda) - n[i]).norm(), 1e-12) << i;
    // ... and continuously so: a point very near the vertex.
    Vec3 near = 0.999999 * lambda + Vec3::Constant(1e-6 / 3);
    EXPECT_LT((tri.normal(near) - n[i]).norm(), 1e-4) << i;
  }
}

TEST(PhongProjection, SharedEdgePlaneDependsOnlyOnItsEndpoints) {
  // Two triangles sharing edge (p, r) with different third vertices and normals: along the edge
  // both must interpolate the same plane (continuity of the field across triangles).
  const Vec3 p(0, 0, 0), r(1, 0, 0), s(0.3, 1, 0.2), t(0.6, -1, 0.1);
  const Vec3 np = Vec3(-0.2, 0.1, 1).normalized(), nr = Vec3(0.3, -0.2, 1).normalized();
  const Vec3 ns = Vec3(0.0, 0.6, 1).normalized(), nt = Vec3(0.1, -0.5, 1).normalized();
  const PhongTriangle left({p, r, s}, {np, nr, ns});
  const PhongTriangle right({r, p, t}, {nr, np, nt});
  for (double a = 0.05; a < 1.0; a += 0.1) {
    const Vec3 nl = left.normal(Vec3(1 - a, a, 0));
    const Vec3 nrt = right.normal(Vec3(a, 1 - a, 0));
    EXPECT_LT((nl - nrt).norm(), 1e-12) << a;
  }
}

TEST(PhongProjection, BoxFaceDiagonalProjectsCentreAlongFaceNormal) {
  // Face x = 1 of the cube [−1, 1]³ split along the diagonal (1, 1, 1)–(1, −1, −1); corner
  // normals (1, ±1, ±1)/√3. By the symmetry swapping the diagonal's ends (a half turn about x),
  // the plane at the diagonal's midpoint is x = const, so points on the x axis project to (1,0,0)
  // (the only projection for points near the face; deep inside, the normal lines cross and
  // other solutions appear, as the paper notes).
  const std::array<Vec3, 3> q = {Vec3(1, 1, 1), Vec3(1, -1, -1), Vec3(1, 1, -1)};
  const std::array<Vec3, 3> n = {Vec3(1, 1, 1).normalized(), Vec3(1, -1, -1).normalized(),
                                 Vec3(1, 1, -1).normalized()};
  const PhongTriangle tri(q, n);
  for (double x : {0.6, 0.9, 1.2, 1.5}) {
    std::optional<PhongHit> hit = tri.project(Vec3(x, 0, 0), 64, kTol);
    ASSERT_TRUE(hit.has_value()) << x;
    EXPECT_LT((hit->point - Vec3(1, 0, 0)).norm(), 1e-8) << x;
    EXPECT_LT((hit->normal - Vec3(1, 0, 0)).norm(), 1e-8) << x;
    EXPECT_NEAR(hit->lambda[2], 0.0, 1e-8);
  }
}

TEST(PhongProjection, RigidMotionCommutesWithProjection) {
  // The tangent bases are picked per vertex from the normal alone (any_orthogonal), which is not
  // rotation-equivariant; the interpolated planes must not depend on that choice.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const std::array<Vec3, 3> q = {Vec3(0, 0, 0), Vec3(1, 0, 0.2), Vec3(0.1, 0.9, -0.1)};
  const std::array<Vec3, 3> n = {Vec3(-0.4, -0.3, 1).normalized(), Vec3(0.5, -0.2, 1).normalized(),
                                 Vec3(0.0, 0.6, 1).normalized()};
  const PhongTriangle tri(q, n);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Vec3 r = test::draw_vec3(u, rng);
    const Vec3 o(0.35 + 0.15 * r.x(), 0.3 + 0.15 * r.y(), 0.6 * r.z());
    std::optional<PhongHit> hit = tri.project(o, 64, kTol);
    if (!hit) continue;
    const Quat rot = test::draw_angle_axis(u, rng, 3.0);
    const Vec3 shift = test::draw_vec3(u, rng);
    const PhongTriangle moved({rot * q[0] + shift, rot * q[1] + shift, rot * q[2] + shift},
                              {rot * n[0], rot * n[1], rot * n[2]});
    std::optional<PhongHit> hit2 = moved.project(rot * o + shift, 64, kTol);
    ASSERT_TRUE(hit2.has_value()) << trial;
    EXPECT_LT((hit2->point - (rot * hit->point + shift)).norm(), 1e-8) << trial;
    EXPECT_LT((hit2->normal - rot * hit->normal).norm(), 1e-8) << trial;
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

TEST(PhongProjection, ProjectionSatisfiesCollinearityWithTiltedNormals) {
  // Eq. 5.2 at the result: q − o parallel to the interpolated normal, q inside the triangle.
  const std::array<Vec3, 3> q = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  const std::array<Vec3, 3> n = {Vec3(-1, -1, 2).normalized(), Vec3(1, -0.5, 2).normalized(),
                                 Vec3(-0.5, 1, 2).normalized()};
  const PhongTriangle tri(q, n);
  for (double z : {-0.5, -0.1, 0.1, 0.7}) {
    const Vec3 o(0.3, 0.3, z);
    std::optional<PhongHit> hit = tri.project(o, 64, kTol);
    ASSERT_TRUE(hit.has_value()) << z;
    const Vec3 d = hit->point - o;
    EXPECT_LT(d.cross(hit->normal).norm(), 1e-8) << z;
    EXPECT_GE(hit->lambda.minCoeff(), -1e-7);
    EXPECT_NEAR(hit->lambda.sum(), 1.0, 1e-12);
    EXPECT_NEAR(hit->point.z(), 0.0, 1e-12);
    // Tilted normals: unlike the orthogonal projection, the foot moves with the height.
    if (std::abs(z) > 0.3) {
      EXPECT_GT((hit->point - Vec3(0.3, 0.3, 0)).norm(), 1e-3) << z;
    }
  }
}

}  // namespace
}  // namespace impetus
