#include "cloth/ccd.h"

#include <algorithm>
#include <cmath>

#include "collision/distance/segment_closest.h"
#include "collision/distance/triangle_distance.h"

namespace impetus {
namespace {

// Intervals narrower than this (in t) are candidate roots; the distance is checked there with
// the slack L·width so that the true root inside cannot be missed.
constexpr double kRootWidth = 1e-10;
constexpr int kMaxDepth = 40;
// Conservative advancement gives up (and reports a contact, conservatively) after this many
// steps; it happens only for near misses within a hair of eta.
constexpr int kMaxAdvancementSteps = 200;

double det3(const Vec3& a, const Vec3& b, const Vec3& c) { return a.cross(b).dot(c); }

// A unit vector orthogonal to v, or +z when v is zero (fully collapsed primitives).
Vec3 safe_orthogonal(const Vec3& v) {
  return v.squaredNorm() > 0 ? any_orthogonal(v) : Vec3(Vec3::UnitZ());
}

struct Interval {
  double t0, t1;
  double b[4];
};

// Subdivide f on [t0, t1] (Bernstein form) at the midpoint by de Casteljau.
void split(const Interval& in, Interval& left, Interval& right) {
  const double* b = in.b;
  double b01 = 0.5 * (b[0] + b[1]), b12 = 0.5 * (b[1] + b[2]), b23 = 0.5 * (b[2] + b[3]);
  double b012 = 0.5 * (b01 + b12), b123 = 0.5 * (b12 + b23);
  double mid = 0.5 * (b012 + b123);
  double tm = 0.5 * (in.t0 + in.t1);
  left = {in.t0, tm, {b[0], b01, b012, mid}};
  right = {tm, in.t1, {mid, b123, b23, b[3]}};
}

bool strictly_one_sign(const double b[4], double err) {
  bool pos = true, neg = true;
  for (int k = 0; k < 4; ++k) {
    if (!(b[k] > err)) pos = false;
    if (!(b[k] < -err)) neg = false;
  }
  return pos || neg;
}

bool all_ambiguous(const double b[4], double err) {
  for (int k = 0; k < 4; ++k)
    if (std::abs(b[k]) > err) return false;
  return true;
}

// Shared driver: `distance(t, hit)` fills the closest-point data at time t and returns the
// distance; L bounds |d distance / dt|.
template <class DistanceAt>
CcdHit find_contact(const double bern[4], double err, double lipschitz, double eta,
                    DistanceAt&& distance) {
  CcdHit result;
  if (strictly_one_sign(bern, err)) return result;  // never coplanar in [0, 1]

  // Conservative advancement on [t0, t1]: first time with distance ≤ eta, if any.
  auto advance = [&](double t0, double t1, CcdHit& hit) {
    double t = t0;
    for (int step = 0; step < kMaxAdvancementSteps; ++step) {
      double d = distance(t, hit);
      if (d <= eta) {
        hit.hit = true;
        hit.t = t;
        hit.distance = d;
        return true;
      }
      if (!(lipschitz > 0)) return false;  // the distance does not change
      t += (d - eta) / lipschitz;
      if (t > t1) return false;
    }
    hit.hit = true;  // conservative: could not certify the gap in the step budget
    hit.t = t;
    hit.distance = distance(t, hit);
    return true;
  };

  // Depth-first, earlier half first, so the first contact found is the earliest.
  Interval stack[kMaxDepth + 2];
  int top = 0;
  stack[top++] = {0.0, 1.0, {bern[0], bern[1], bern[2], bern[3]}};
  while (top > 0) {
    Interval cur = stack[--top];
    if (strictly_one_sign(cur.b, err)) continue;
    const double width = cur.t1 - cur.t0;
    if (all_ambiguous(cur.b, err)) {
      CcdHit hit;
      if (advance(cur.t0, cur.t1, hit)) return hit;
      continue;
    }
    if (width <= kRootWidth || top >= kMaxDepth) {
      CcdHit hit;
      const double tm = 0.5 * (cur.t0 + cur.t1);
      const double d = distance(tm, hit);
      if (d <= eta + lipschitz * width) {
        hit.hit = true;
        hit.t = cur.t0;
        hit.distance = d;
        return hit;
      }
      continue;
    }
    Interval left, right;
    split(cur, left, right);
    stack[top++] = right;
    stack[top++] = left;
  }
  return result;
}

}  // namespace

void coplanarity_bernstein(const Vec3& A, const Vec3& B, const Vec3& C, const Vec3& dA,
                           const Vec3& dB, const Vec3& dC, double out[4]) {
  // Each factor is linear in t with Bézier points X0 = X, X1 = X + dX; the triple product of
  // three linear Bézier vectors has cubic Bernstein coefficients = averages of mixed products.
  const Vec3 A1 = A + dA, B1 = B + dB, C1 = C + dC;
  out[0] = det3(A, B, C);
  out[1] = (det3(A1, B, C) + det3(A, B1, C) + det3(A, B, C1)) / 3.0;
  out[2] = (det3(A, B1, C1) + det3(A1, B, C1) + det3(A1, B1, C)) / 3.0;
  out[3] = det3(A1, B1, C1);
}

CcdHit ccd_vertex_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                           const Vec3& dp, const Vec3& da, const Vec3& db, const Vec3& dc,
                           double eta) {
  const Vec3 A = b - a, B = c - a, C = p - a;
  const Vec3 dA = db - da, dB = dc - da, dC = dp - da;
  double bern[4];
  coplanarity_bernstein(A, B, C, dA, dB, dC, bern);
  const double scale = std::max(A.norm(), (A + dA).norm()) * std::max(B.norm(), (B + dB).norm()) *
                       std::max(C.norm(), (C + dC).norm());
  const double err = 1e-12 * scale;
  const double lipschitz = std::max({(dp - da).norm(), (dp - db).norm(), (dp - dc).norm()});
  auto distance = [&](double t, CcdHit& hit) {
    const Vec3 pt = p + t * dp, at = a + t * da, bt = b + t * db, ct = c + t * dc;
    PointTriangleClosest cl = closest_point_triangle(pt, at, bt, ct);
    hit.weights = cl.weights;
    Vec3 n = (bt - at).cross(ct - at);
    const double nn = n.norm();
    if (nn > 0) {
      hit.normal = n / nn;
    } else if (cl.distance > 0) {
      hit.normal = (pt - cl.point) / cl.distance;
    } else {
      hit.normal = safe_orthogonal(bt - at);
    }
    return cl.distance;
  };
  return find_contact(bern, err, lipschitz, eta, distance);
}

CcdHit ccd_edge_edge(const Vec3& p0, const Vec3& p1, const Vec3& q0, const Vec3& q1,
                     const Vec3& dp0, const Vec3& dp1, const Vec3& dq0, const Vec3& dq1,
                     double eta) {
  const Vec3 A = p1 - p0, B = q1 - q0, C = q0 - p0;
  const Vec3 dA = dp1 - dp0, dB = dq1 - dq0, dC = dq0 - dp0;
  double bern[4];
  coplanarity_bernstein(A, B, C, dA, dB, dC, bern);
  const double scale = std::max(A.norm(), (A + dA).norm()) * std::max(B.norm(), (B + dB).norm()) *
                       std::max(C.norm(), (C + dC).norm());
  const double err = 1e-12 * scale;
  const double lipschitz = std::max({(dp0 - dq0).norm(), (dp0 - dq1).norm(), (dp1 - dq0).norm(),
                                     (dp1 - dq1).norm()});
  auto distance = [&](double t, CcdHit& hit) {
    const Vec3 a0 = p0 + t * dp0, a1 = p1 + t * dp1, b0 = q0 + t * dq0, b1 = q1 + t * dq1;
    SegmentClosest cl = closest_segment_segment(a0, a1, b0, b1);
    hit.s = cl.s;
    hit.u = cl.t;
    Vec3 n = (a1 - a0).cross(b1 - b0);
    const double nn = n.norm();
    const double len = (a1 - a0).norm() * (b1 - b0).norm();
    if (nn > 1e-9 * len && nn > 0) {
      hit.normal = n / nn;
    } else if (cl.distance > 0) {
      hit.normal = (cl.p - cl.q) / cl.distance;
    } else {
      hit.normal = safe_orthogonal(a1 - a0);
    }
    return cl.distance;
  };
  return find_contact(bern, err, lipschitz, eta, distance);
}

}  // namespace impetus
