// CCD of the cloth primitives against dense sampling, including coplanar, parallel, touching
// and static (degenerate) motions (their closest points: tests/collision/distance/segment_closest_test.cpp
// and triangle_distance_test.cpp).
#include <gtest/gtest.h>

#include "cloth/ccd.h"
#include "collision/distance/segment_closest.h"
#include "collision/distance/triangle_distance.h"
#include "cloth_test_util.h"

namespace impetus {
namespace {

using cloth_test::random_vec;
using cloth_test::uniform;
using test::uniform_in_box;

double triple(const Vec3& a, const Vec3& b, const Vec3& c) { return a.cross(b).dot(c); }

// Reference crossing of a moving vertex through a moving triangle: sign changes of the
// coplanarity function on a dense time grid, refined by bisection, with the barycentric
// coordinates of the crossing point. Returns the earliest crossing strictly inside (margin).
double reference_vf_crossing(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                             const Vec3& dp, const Vec3& da, const Vec3& db, const Vec3& dc,
                             double margin, bool* ambiguous) {
  auto f = [&](double t) {
    const Vec3 at = a + t * da;
    return triple(b + t * db - at, c + t * dc - at, p + t * dp - at);
  };
  const int n = 4000;
  *ambiguous = false;
  double prev = f(0);
  for (int k = 1; k <= n; ++k) {
    double t0 = double(k - 1) / n, t1 = double(k) / n;
    const double cur = f(t1);
    if ((prev <= 0) != (cur <= 0)) {
      for (int it = 0; it < 80; ++it) {
        const double tm = 0.5 * (t0 + t1);
        if ((f(t0) <= 0) != (f(tm) <= 0)) t1 = tm; else t0 = tm;
      }
      const double t = 0.5 * (t0 + t1);
      const Vec3 at = a + t * da, e1 = b + t * db - at, e2 = c + t * dc - at, w = p + t * dp - at;
      // Barycentric coordinates from the 2×2 normal equations.
      const double d11 = e1.dot(e1), d12 = e1.dot(e2), d22 = e2.dot(e2);
      const double r1 = w.dot(e1), r2 = w.dot(e2), det = d11 * d22 - d12 * d12;
      const double u = (d22 * r1 - d12 * r2) / det, v = (d11 * r2 - d12 * r1) / det;
      if (u > margin && v > margin && u + v < 1 - margin) return t;
      if (u > -margin && v > -margin && u + v < 1 + margin) *ambiguous = true;
    }
    prev = cur;
  }
  return -1;
}

TEST(Ccd, VertexTriangleMatchesDenseTimeSampling) {
  std::mt19937_64 rng(3);
  int hits = 0, misses = 0;
  const double eta = 1e-6;
  for (int trial = 0; trial < 600; ++trial) {
    const Vec3 a = uniform_in_box(rng, Vec3(-1, -1, -0.2), Vec3(0, 0, 0.2));
    const Vec3 b = uniform_in_box(rng, Vec3(0.2, -1, -0.2), Vec3(1, 0, 0.2));
    const Vec3 c = uniform_in_box(rng, Vec3(-0.5, 0.3, -0.2), Vec3(0.5, 1, 0.2));
    const Vec3 p = uniform_in_box(rng, Vec3(-1, -1, 0.3), Vec3(1, 1, 1.0));
    const Vec3 dp = uniform_in_box(rng, Vec3(-1, -1, -2.0), Vec3(1, 1, -0.5));
    const Vec3 da = 0.3 * random_vec(rng), db = 0.3 * random_vec(rng), dc = 0.3 * random_vec(rng);
    bool ambiguous = false;
    const double t_ref = reference_vf_crossing(p, a, b, c, dp, da, db, dc, 1e-3, &ambiguous);
    const CcdHit hit = ccd_vertex_triangle(p, a, b, c, dp, da, db, dc, eta);
    if (hit.hit) {
      // Independent check of a reported contact: the primitives really are within eta then.
      const double t = hit.t;
      const PointTriangleClosest cl =
          closest_point_triangle(p + t * dp, a + t * da, b + t * db, c + t * dc);
      EXPECT_LE(cl.distance, eta + 1e-9) << trial;
    }
    if (t_ref >= 0) {
      ++hits;
      ASSERT_TRUE(hit.hit) << "missed crossing, trial " << trial;
      EXPECT_LE(hit.t, t_ref + 1e-6) << trial;
    } else if (!ambiguous) {
      ++misses;
      EXPECT_FALSE(hit.hit) << "false contact, trial " << trial;
    }
  }
  EXPECT_GT(hits, 50);
  EXPECT_GT(misses, 50);
}

double reference_ee_crossing(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1,
                             const Vec3& dp0, const Vec3& dp1, const Vec3& dq0, const Vec3& dq1,
                             double margin, bool* ambiguous) {
  auto f = [&](double t) {
    const Vec3 a0 = p0 + t * dp0, a1 = p1 + t * dp1, b0 = q0 + t * dq0, b1 = q1 + t * dq1;
    return triple(a1 - a0, b1 - b0, b0 - a0);
  };
  const int n = 4000;
  *ambiguous = false;
  double prev = f(0);
  for (int k = 1; k <= n; ++k) {
    double t0 = double(k - 1) / n, t1 = double(k) / n;
    const double cur = f(t1);
    if ((prev <= 0) != (cur <= 0)) {
      for (int it = 0; it < 80; ++it) {
        const double tm = 0.5 * (t0 + t1);
        if ((f(t0) <= 0) != (f(tm) <= 0)) t1 = tm; else t0 = tm;
      }
      const double t = 0.5 * (t0 + t1);
      const Vec3 a0 = p0 + t * dp0, a1 = p1 + t * dp1, b0 = q0 + t * dq0, b1 = q1 + t * dq1;
      // Line–line parameters (the lines are coplanar at t).
      const Vec3 d1 = a1 - a0, d2 = b1 - b0, r = a0 - b0;
      const double A = d1.dot(d1), B = d1.dot(d2), C = d2.dot(d2), D = d1.dot(r), E = d2.dot(r);
      const double det = A * C - B * B;
      const double s = (B * E - C * D) / det, u = (A * E - B * D) / det;
      if (s > margin && s < 1 - margin && u > margin && u < 1 - margin) return t;
      if (s > -margin && s < 1 + margin && u > -margin && u < 1 + margin) *ambiguous = true;
    }
    prev = cur;
  }
  return -1;
}

TEST(Ccd, EdgeEdgeMatchesDenseTimeSampling) {
  std::mt19937_64 rng(4);
  int hits = 0, misses = 0;
  const double eta = 1e-6;
  for (int trial = 0; trial < 600; ++trial) {
    // Edge ends on the x = ±1 and y = ±1 lines: the fixed coordinate's range is a point.
    const Vec3 p0 = uniform_in_box(rng, Vec3(-1, -0.6, 0.2), Vec3(-1, 0.6, 0.6));
    const Vec3 p1 = uniform_in_box(rng, Vec3(1, -0.6, 0.2), Vec3(1, 0.6, 0.6));
    const Vec3 q0 = uniform_in_box(rng, Vec3(-0.6, -1, -0.2), Vec3(0.6, -1, 0.2));
    const Vec3 q1 = uniform_in_box(rng, Vec3(-0.6, 1, -0.2), Vec3(0.6, 1, 0.2));
    const Vec3 dp0 = uniform_in_box(rng, Vec3(-0.5, -1.5, -1.5), Vec3(0.5, 1.5, -0.3));
    const Vec3 dp1 = uniform_in_box(rng, Vec3(-0.5, -1.5, -1.5), Vec3(0.5, 1.5, -0.3));
    const Vec3 dq0 = 0.3 * random_vec(rng), dq1 = 0.3 * random_vec(rng);
    bool ambiguous = false;
    const double t_ref = reference_ee_crossing(p0, p1, q0, q1, dp0, dp1, dq0, dq1, 1e-3, &ambiguous);
    const CcdHit hit = ccd_edge_edge(p0, p1, q0, q1, dp0, dp1, dq0, dq1, eta);
    if (hit.hit) {
      const double t = hit.t;
      const SegmentClosest cl =
          closest_segment_segment(p0 + t * dp0, p1 + t * dp1, q0 + t * dq0, q1 + t * dq1);
      EXPECT_LE(cl.distance, eta + 1e-9) << trial;
    }
    if (t_ref >= 0) {
      ++hits;
      ASSERT_TRUE(hit.hit) << "missed crossing, trial " << trial;
      EXPECT_LE(hit.t, t_ref + 1e-6) << trial;
    } else if (!ambiguous) {
      ++misses;
      EXPECT_FALSE(hit.hit) << "false contact, trial " << trial;
    }
  }
  EXPECT_GT(hits, 40);
  EXPECT_GT(misses, 40);
}

TEST(Ccd, DegenerateVertexTriangleMotions) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0), zero = Vec3::Zero();
  const double eta = 1e-6;
  // Coplanar: the vertex slides in the triangle's plane into it (f ≡ 0).
  CcdHit h = ccd_vertex_triangle(Vec3(-0.5, 0.25, 0), a, b, c, Vec3(1, 0, 0), zero, zero, zero, eta);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.5, 1e-5);
  // Coplanar, passing beside the triangle.
  h = ccd_vertex_triangle(Vec3(-0.5, 1.5, 0), a, b, c, Vec3(2, 0, 0), zero, zero, zero, eta);
  EXPECT_FALSE(h.hit);
  // Coplanar and crossing the whole triangle within the step (enters and leaves).
  h = ccd_vertex_triangle(Vec3(-0.5, 0.25, 0), a, b, c, Vec3(3, 0, 0), zero, zero, zero, eta);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.5 / 3, 1e-5);
  // Resting on the face, nothing moves.
  h = ccd_vertex_triangle(Vec3(0.2, 0.2, 0), a, b, c, zero, zero, zero, zero, eta);
  ASSERT_TRUE(h.hit);
  EXPECT_EQ(h.t, 0.0);
  // Far and static.
  EXPECT_FALSE(ccd_vertex_triangle(Vec3(0.2, 0.2, 1), a, b, c, zero, zero, zero, zero, eta).hit);
  // Through an edge midpoint and through a vertex exactly.
  h = ccd_vertex_triangle(Vec3(0.5, 0.5, 1), a, b, c, Vec3(0, 0, -2), zero, zero, zero, eta);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.5, 1e-5);
  h = ccd_vertex_triangle(Vec3(1, 0, 1), a, b, c, Vec3(0, 0, -2), zero, zero, zero, eta);
  ASSERT_TRUE(h.hit);
  // Moving together: same displacement for all four points, 1 mm apart: never closer.
  const Vec3 d(0.3, -0.2, 0.7);
  EXPECT_FALSE(ccd_vertex_triangle(Vec3(0.2, 0.2, 1e-3), a, b, c, d, d, d, d, eta).hit);
  // The triangle collapses to a segment at t = 1 while the vertex stays 1e-3 off it.
  h = ccd_vertex_triangle(Vec3(0.25, 0.5, 1e-3), a, b, c, zero, zero, zero, Vec3(1, -1, 0), eta);
  EXPECT_FALSE(h.hit);
  // The triangle sweeps over a static vertex lying in its plane.
  // The hypotenuse x + y = 1 + 2t reaches (2, 0.1) at t = 0.55.
  h = ccd_vertex_triangle(Vec3(2, 0.1, 0), a, b, c, zero, Vec3(2, 0, 0), Vec3(2, 0, 0), Vec3(2, 0, 0), eta);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.55, 1e-5);
}

TEST(Ccd, DegenerateEdgeEdgeMotions) {
  const double eta = 1e-6;
  const Vec3 zero = Vec3::Zero();
  // Parallel edges, one dropping onto the other.
  CcdHit h = ccd_edge_edge(Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(0, 0, 0), Vec3(1, 0, 0),
                           Vec3(0, 0, -2), Vec3(0, 0, -2), zero, zero, eta);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.5, 1e-5);
  // Collinear edges sliding into each other along their line.
  h = ccd_edge_edge(Vec3(2, 0, 0), Vec3(3, 0, 0), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(-2.5, 0, 0),
                    Vec3(-2.5, 0, 0), zero, zero, eta);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.4, 1e-5);
  // Skew edges passing 1e-3 apart (never coplanar in the edge's span): no contact; at 0: contact.
  EXPECT_FALSE(ccd_edge_edge(Vec3(-1, 0, 1e-3), Vec3(1, 0, 1e-3), Vec3(0, -1, 0), Vec3(0, 1, 0),
                             Vec3(0, 2, 0), Vec3(0, 2, 0), zero, zero, eta).hit);
  h = ccd_edge_edge(Vec3(-1, -1, 0.5), Vec3(1, -1, 0.5), Vec3(0, -1, 0), Vec3(0, 1, 0),
                    Vec3(0, 2, -1), Vec3(0, 2, -1), zero, zero, eta);
  ASSERT_TRUE(h.hit);
  // Coplanar edges in one plane, one sweeping across the other in-plane.
  h = ccd_edge_edge(Vec3(-1, 2, 0), Vec3(1, 2, 0), Vec3(0, -1, 0), Vec3(0, 1, 0), Vec3(0, -4, 0),
                    Vec3(0, -4, 0), zero, zero, eta);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.25, 1e-5);
  // Static, touching at an end point.
  EXPECT_TRUE(ccd_edge_edge(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0), zero, zero,
                            zero, zero, eta).hit);
}

TEST(Ccd, BernsteinEndpointsAreTheCubicEndpoints) {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 50; ++trial) {
    const Vec3 A = random_vec(rng), B = random_vec(rng), C = random_vec(rng);
    const Vec3 dA = random_vec(rng), dB = random_vec(rng), dC = random_vec(rng);
    double b[4];
    coplanarity_bernstein(A, B, C, dA, dB, dC, b);
    for (double t : {0.0, 0.25, 0.5, 0.8, 1.0}) {
      const double mt = 1 - t;
      const double bern = b[0] * mt * mt * mt + 3 * b[1] * t * mt * mt + 3 * b[2] * t * t * mt + b[3] * t * t * t;
      const double direct = triple(A + t * dA, B + t * dB, C + t * dC);
      EXPECT_NEAR(bern, direct, 1e-12);
    }
  }
}

}  // namespace
}  // namespace impetus
