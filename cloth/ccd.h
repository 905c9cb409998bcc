#pragma once
// Continuous collision detection of the cloth primitives over one step, with every vertex
// moving linearly from x to x + dx (t ∈ [0, 1]): vertex–triangle and edge–edge.
//
// A contact is a time where the two primitives come within `eta` of each other. Candidate
// times are the roots of the cubic coplanarity condition f(t) = (A(t) × B(t))·C(t) = 0,
// isolated robustly by Bernstein subdivision: an interval is dropped only when the Bernstein
// coefficients of f on it have one strict sign beyond a round-off bound, so a root is never
// lost to round-off. Where f cannot be told from zero (coplanar or degenerate motion, e.g. a
// flat sheet moving in its plane) the interval goes to conservative advancement on the exact
// distance with the Lipschitz bound L = max |relative displacement|, which is certain for any
// motion. A reported hit is the earliest such time found, so CCD never misses a crossing.
#include "collision/base/math.h"

namespace impetus {

struct CcdHit {
  bool hit = false;
  double t = 1;                  // contact time in [0, 1]
  double distance = 0;           // distance at t (≤ eta up to the subdivision tolerance)
  Vec3 normal = Vec3::UnitZ();   // unit, not oriented: triangle normal / edge cross at t
  Vec3 weights = Vec3::Zero();   // vertex–triangle: barycentric of the closest point
  double s = 0, u = 0;           // edge–edge: parameters on edge p and edge q
};

/// Vertex p against triangle (a, b, c); displacements dp, da, db, dc over the step.
CcdHit ccd_vertex_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                           const Vec3& dp, const Vec3& da, const Vec3& db, const Vec3& dc,
                           double eta);

/// Edge (p0, p1) against edge (q0, q1).
CcdHit ccd_edge_edge(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1,
                     const Vec3& dp0, const Vec3& dp1, const Vec3& dq0, const Vec3& dq1,
                     double eta);

/// Bernstein coefficients of the coplanarity cubic (A + t·dA) × (B + t·dB) · (C + t·dC),
/// exposed for tests.
void coplanarity_bernstein(const Vec3& A, const Vec3& B, const Vec3& C, const Vec3& dA,
                           const Vec3& dB, const Vec3& dC, double out[4]);

}  // namespace impetus
