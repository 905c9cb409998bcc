#include "collision/distance/ellipsoid_closest_approach.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/LU>

#include "collision/base/assert.h"

namespace impetus {
namespace {

// The per-iteration arithmetic is written on plain scalars (S3, Mat3s, Sym3), not on Eigen
// vectors: Eigen's 2-wide packet loads of a Vec3 whose lanes were just stored one by one (the
// solve's output) miss store-to-load forwarding, which perf put at about a sixth of an
// evaluation. Sums are associated as Eigen did ((x0 y0 + x1 y1) + x2 y2, matrix columns in
// order). Against the former Eigen code, on 360k solves (γ = 5, 50, 1000, all methods, both
// stopping rules): the same iteration counts everywhere, d equal to 5e-15 relative at γ = 5,
// 1e-12 at γ = 50 and 1.2e-10 at γ = 1000, where changing one radius by 1 ulp moves the former
// code's d by 1.5e-10 (the conditioning of E_u, not a loss of accuracy).
struct S3 {
  double x, y, z;
};
inline double dot(const S3& a, const S3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline S3 cwise(const S3& a, const S3& b) { return S3{a.x * b.x, a.y * b.y, a.z * b.z}; }
inline S3 to_s3(const Vec3& v) { return S3{v.x(), v.y(), v.z()}; }
inline Vec3 to_vec3(const S3& v) { return Vec3(v.x, v.y, v.z); }

// 3×3 matrix as scalars, for products with S3 (all nine entries: R diag Rᵀ is symmetric only to
// rounding, and the factorisation reads the lower triangle, as before).
struct Mat3s {
  double m00, m10, m20, m01, m11, m21, m02, m12, m22;
  static Mat3s from(const Mat3& m) {
    return Mat3s{m(0, 0), m(1, 0), m(2, 0), m(0, 1), m(1, 1), m(2, 1), m(0, 2), m(1, 2), m(2, 2)};
  }
  S3 operator*(const S3& v) const {  // column by column, as Eigen's matrix–vector product
    return S3{(m00 * v.x + m01 * v.y) + m02 * v.z, (m10 * v.x + m11 * v.y) + m12 * v.z,
              (m20 * v.x + m21 * v.y) + m22 * v.z};
  }
  // a − M v, accumulated column by column.
  S3 subtract_product(const S3& a, const S3& v) const {
    return S3{((a.x - m00 * v.x) - m01 * v.y) - m02 * v.z,
              ((a.y - m10 * v.x) - m11 * v.y) - m12 * v.z,
              ((a.z - m20 * v.x) - m21 * v.y) - m22 * v.z};
  }
};

// Symmetric 3×3 matrix by its lower triangle (E_u, for the factorisation).
struct Sym3 {
  double xx, xy, xz, yy, yz, zz;
};

// The problem in a's local frame, where E1 = diag(e1) needs no matrix at all.
struct Problem {
  S3 e1;         // diagonal of E1 = diag(a^-2, b^-2, c^-2)
  Mat3 E2;       // R diag(radii_b^-2) Rᵀ
  Mat3s E2s;     // the same, as scalars
  Mat3s F2s;     // E2⁻¹ = R diag(radii_b^2) Rᵀ, from the rotation and radii (no inversion)
  S3 E2n;        // E2 n, the right-hand side of eq. 7
  double r_min;  // smallest of the six radii (eq. 13)
};

Problem make_problem(const Vec3& radii_a, const Vec3& radii_b, const Mat3& rot_b, const Vec3& n) {
  Problem p;
  p.e1 = to_s3(radii_a.cwiseProduct(radii_a).cwiseInverse());
  Vec3 inv_b2 = radii_b.cwiseProduct(radii_b).cwiseInverse();
  Vec3 b2 = radii_b.cwiseProduct(radii_b);
  p.E2.noalias() = rot_b * inv_b2.asDiagonal() * rot_b.transpose();
  Mat3 F2;
  F2.noalias() = rot_b * b2.asDiagonal() * rot_b.transpose();
  p.E2s = Mat3s::from(p.E2);
  p.F2s = Mat3s::from(F2);
  Vec3 E2n;
  E2n.noalias() = p.E2 * n;
  p.E2n = to_s3(E2n);
  p.r_min = std::min(radii_a.minCoeff(), radii_b.minCoeff());
  return p;
}

// L D Lᵀ factorisation of a 3×3 SPD matrix (unit lower L, positive diagonal D), written out and
// free of square roots: this solve is most of an iteration's cost, and the unrolled form is
// ~2× faster than Eigen::LLT<Matrix3d> here.
class Ldlt3 {
 public:
  explicit Ldlt3(const Sym3& A) {
    id0_ = 1.0 / A.xx;
    l10_ = A.xy * id0_;
    l20_ = A.xz * id0_;
    double d1 = A.yy - l10_ * A.xy;
    id1_ = 1.0 / d1;
    double a21 = A.yz - l20_ * A.xy;  // d1 · l21
    l21_ = a21 * id1_;
    double d2 = A.zz - l20_ * A.xz - l21_ * a21;
    id2_ = 1.0 / d2;
  }
  S3 solve(const S3& b) const {
    // L y = b, D z = y, Lᵀ x = z.
    double y1 = b.y - l10_ * b.x;
    double y2 = b.z - l20_ * b.x - l21_ * y1;
    double x2 = y2 * id2_;
    double x1 = y1 * id1_ - l21_ * x2;
    double x0 = b.x * id0_ - l10_ * x1 - l20_ * x2;
    return S3{x0, x1, x2};
  }

 private:
  double l10_, l20_, l21_;
  double id0_, id1_, id2_;  // reciprocals of D
};

// E_u = u E1 + (1 − u) E2 (eq. 7), entry by entry as (1 − u) E2, then u e1 added on the diagonal.
Sym3 blend(const Problem& p, double u) {
  const double s = 1.0 - u;
  const Mat3s& E2 = p.E2s;
  return Sym3{s * E2.m00 + u * p.e1.x, s * E2.m10, s * E2.m20,
              s * E2.m11 + u * p.e1.y, s * E2.m21, s * E2.m22 + u * p.e1.z};
}

// Quantities along the contact curve at one parameter value. w is paper 1's w(u) (eq. 7);
// every quantity used below is invariant to its scale or scaled back.
struct Curve {
  S3 w;          // w(u)
  S3 v;          // E1 w (∝ ∇e1 at x(u), eq. 6)
  S3 F2v;        // E2⁻¹ E1 w
  double B = 0;  // wᵀ E1 w                (eq. 8 without (1−u)²)
  double A = 0;  // wᵀ E1 E2⁻¹ E1 w        (eq. 9 without u²)
};

Curve curve_from(const Problem& p, const S3& w) {
  Curve c;
  c.w = w;
  c.v = cwise(p.e1, w);
  c.F2v = p.F2s * c.v;
  c.B = dot(c.w, c.v);
  c.A = dot(c.v, c.F2v);
  return c;
}

// The curve point in the Eigen types the outputs use.
struct CurvePoint {
  Vec3 w;
  Vec3 v;
  double B = 0;
  double A = 0;
};
CurvePoint to_point(const Curve& c) { return CurvePoint{to_vec3(c.w), to_vec3(c.v), c.B, c.A}; }

// Paper 1, eqs. 7, 10, 11 at u ∈ [0, 1]. E_u = u E1 + (1 − u) E2 is SPD on the closed interval
// (a convex combination of SPD matrices), so the LDLᵀ solve is always defined, ends included.
// With derivative = true also f'(u), reusing the factorisation. With w' = −E_u⁻¹E12 w = −z:
//   f' = −2(1−u)[B + (1−u) vᵀz] − 2u[A − u (M w)ᵀz],   M w = E1 E2⁻¹ E1 w = E1 F2 v.
// Deviation: eq. 11 as printed reads [I + u E12 E_u⁻¹] in its second term; differentiating
// −u² wᵀMw gives −2u wᵀMw + 2u² wᵀM E_u⁻¹E12 w, i.e. [I − u E12 E_u⁻¹]. The printed sign puts
// f' off by tens of percent (checked against finite differences in the tests), and Newton then
// needed ~21 iterations on average instead of ~5 (γ = 5, Γ = 3).
struct FEval {
  Curve c;
  double f = 0;
  double df = 0;
};

FEval evaluate_f(const Problem& p, double u, bool derivative) {
  FEval r;
  const double s = 1.0 - u;
  const Ldlt3 llt(blend(p, u));
  r.c = curve_from(p, llt.solve(p.E2n));
  r.f = s * s * r.c.B - u * u * r.c.A;
  if (derivative) {
    // (E1 − E2) w. Eq. 7 gives u E1w + (1−u) E2w = E2n, hence (E1 − E2) w = (E1w − E2n)/(1−u):
    // no product with E2, and z's solve starts as soon as E1w is known (it is on f's critical
    // path already). The subtraction cancels as u → 1 (E1w → E2n), amplifying rounding by
    // ~1/(1−u): up to u = 15/16 that is ≤ 16 ulp in f′ (which only steers Newton; f, and so
    // the root, is untouched), beyond it the product form is kept.
    S3 E12w;
    if (u <= 0.9375) {
      const double k = 1.0 / s;
      E12w = S3{(r.c.v.x - p.E2n.x) * k, (r.c.v.y - p.E2n.y) * k, (r.c.v.z - p.E2n.z) * k};
    } else {
      E12w = p.E2s.subtract_product(r.c.v, r.c.w);
    }
    const S3 z = llt.solve(E12w);
    const S3 E1F2v = cwise(p.e1, r.c.F2v);  // M w with M = E1 E2⁻¹ E1
    r.df = -2.0 * s * (r.c.B + s * dot(r.c.v, z)) - 2.0 * u * (r.c.A - u * dot(E1F2v, z));
  }
  return r;
}

// w(u) at any real u, for Steffensen's extrapolated points: outside [0, 1] E_u can be indefinite
// (or singular, giving a non-finite w that ends the iteration), so a pivoted LU replaces LDLᵀ.
Curve evaluate_curve(const Problem& p, double u) {
  if (u >= 0.0 && u <= 1.0) return curve_from(p, Ldlt3(blend(p, u)).solve(p.E2n));
  Mat3 Eu = (1.0 - u) * p.E2;
  Eu.diagonal() += u * Vec3(p.e1.x, p.e1.y, p.e1.z);
  return curve_from(p, to_s3(Eigen::PartialPivLU<Mat3>(Eu).solve(to_vec3(p.E2n))));
}

// The fixed-point map of ref. [4]. Eqs. 8 and 9 (in its λ = (u − 1)/u) give
// λ² wᵀE1w = wᵀE1E2⁻¹E1w with λ ≤ 0, i.e. λ = −sqrt(A/B); in u that is u = 1/(1 + sqrt(A/B)).
// The sequence of iterates is the same in λ and in u; u is the variable Steffensen extrapolates
// (below). Any finite A, B ≥ 0 map into [0, 1].
double fixed_point_map(const Curve& c) { return 1.0 / (1.0 + std::sqrt(c.A / c.B)); }

// Eq. 13's gap ‖x1 − x2‖ with x1 = (1−u) d1 w, x2 = (1−u) d2 w, d1 from eq. 8 and d2 from eq. 9,
// written with ratio = (1−u)/u so that it is invariant to the scale of w:
//   ‖x1 − x2‖ = ‖w‖ |1/sqrt(B) − ratio/sqrt(A)|.
double contact_gap(const Curve& c, double ratio) {
  return std::sqrt(dot(c.w, c.w)) * std::abs(1.0 / std::sqrt(c.B) - ratio / std::sqrt(c.A));
}

bool finite(double x) { return std::isfinite(x); }

struct Solve {
  double u = 0.5;
  int iterations = 0;
  bool converged = false;
};

// Newton on f(u) safeguarded by bisection (paper 1, §2.2; the rtsafe scheme of its ref. [14]).
// The bracket needs no evaluation: f(0) = nᵀE1n > 0 and f(1) = −nᵀE2n < 0 for any unit n.
// A Newton step is taken only when it lands inside the bracket and the step is shrinking fast
// enough (|2f| ≤ |f'·previous step|); otherwise bisect. The bracket never grows, so the iteration
// converges for any radii and orientation.
Solve solve_newton_bisection(const Problem& p, const ClosestApproachOptions& o) {
  Solve s;
  double lo = 0.0;  // f(lo) > 0
  double hi = 1.0;  // f(hi) < 0
  double u = 0.5;   // paper 1, §2.3: exact for two equal spheres
  double dx = 1.0;
  double dx_old = 1.0;
  for (int it = 1; it <= o.max_iterations; ++it) {
    FEval e = evaluate_f(p, u, true);
    s.iterations = it;
    if (!finite(e.f) || !finite(e.df)) break;
    if (o.stop == ClosestApproachStop::ContactGap &&
        contact_gap(e.c, (1.0 - u) / u) <= o.tolerance * p.r_min) {
      s.converged = true;
      break;
    }
    if (e.f == 0.0) {
      s.converged = true;
      break;
    }
    if (e.f > 0) lo = u; else hi = u;
    double u_newton = u - e.f / e.df;
    // The bracket test is inclusive: at the root the Newton step is ~0 and lands on the end
    // just moved to u; rejecting it would bisect away from the root.
    bool newton_ok = e.df != 0.0 && u_newton >= lo && u_newton <= hi &&
                     std::abs(2.0 * e.f) <= std::abs(dx_old * e.df);
    dx_old = dx;
    double u_next = newton_ok ? u_newton : 0.5 * (lo + hi);
    dx = u_next - u;
    u = u_next;
    if (o.stop == ClosestApproachStop::StepSize && std::abs(dx) <= o.tolerance) {
      s.converged = true;
      break;
    }
    // A bracket narrower than the rounding of u cannot shrink further.
    if (hi - lo <= 4.0 * std::numeric_limits<double>::epsilon()) {
      s.converged = true;
      break;
    }
  }
  s.u = u;
  return s;
}

// Fixed-point iteration of ref. [4]: u_{i+1} = G(u_i) from u0 = 0.5 (λ0 = −1). Linear
// convergence with a rate that approaches 1 as the ellipsoids get more elongated.
Solve solve_fixed_point(const Problem& p, const ClosestApproachOptions& o) {
  Solve s;
  double u = 0.5;
  for (int it = 1; it <= o.max_iterations; ++it) {
    Curve c = evaluate_curve(p, u);
    s.iterations = it;
    if (o.stop == ClosestApproachStop::ContactGap &&
        contact_gap(c, (1.0 - u) / u) <= o.tolerance * p.r_min) {
      s.converged = true;
      break;
    }
    double next = fixed_point_map(c);
    if (!finite(next)) break;
    double du = next - u;
    u = next;
    if (o.stop == ClosestApproachStop::StepSize && std::abs(du) <= o.tolerance) {
      s.converged = true;
      break;
    }
  }
  s.u = u;
  return s;
}

// Steffensen's method of ref. [4]: from u0, u1 = G(u0), u2 = G(u1), Aitken's Δ² gives
// u0' = u0 − (u1 − u0)² / (u2 − 2u1 + u0), where the next cycle starts. An iteration is one
// evaluation of G, as for the other methods (so a cycle is two), and the stopping rule is checked
// on every new iterate (u1, u2 and u0'). Nothing keeps u0' inside (0, 1) nor near the root:
// for elongated ellipsoids the cycles can wander or oscillate without converging.
// (Extrapolating λ instead of u was tried: it fails from γ ≈ 10 on, far earlier than the
// γ ≈ 133 paper 1 reports for ref. [4]'s Steffensen; extrapolating u matches it.)
Solve solve_steffensen(const Problem& p, const ClosestApproachOptions& o) {
  Solve s;
  const bool gap_rule = o.stop == ClosestApproachStop::ContactGap;
  const double gap_tol = o.tolerance * p.r_min;
  auto gap_ok = [&](const Curve& c, double u) {
    return gap_rule && u > 0.0 && u < 1.0 && contact_gap(c, (1.0 - u) / u) <= gap_tol;
  };
  auto step_ok = [&](double du) { return !gap_rule && std::abs(du) <= o.tolerance; };
  double u0 = 0.5;
  double u = u0;  // the latest iterate
  while (s.iterations < o.max_iterations) {
    Curve c0 = evaluate_curve(p, u0);
    ++s.iterations;
    if (gap_ok(c0, u0)) { s.converged = true; u = u0; break; }
    double u1 = fixed_point_map(c0);
    if (!finite(u1)) break;
    u = u1;
    if (step_ok(u1 - u0)) { s.converged = true; break; }
    if (s.iterations >= o.max_iterations) break;

    Curve c1 = evaluate_curve(p, u1);
    ++s.iterations;
    if (gap_ok(c1, u1)) { s.converged = true; break; }
    double u2 = fixed_point_map(c1);
    if (!finite(u2)) break;
    u = u2;
    if (step_ok(u2 - u1)) { s.converged = true; break; }

    double denom = u2 - 2.0 * u1 + u0;
    double next = denom != 0.0 ? u0 - (u1 - u0) * (u1 - u0) / denom : u2;
    if (!finite(next)) break;
    double du = next - u0;
    u0 = next;
    u = next;
    if (step_ok(du)) { s.converged = true; break; }
  }
  s.u = u;
  return s;
}

}  // namespace

ClosestApproachEquation ellipsoid_closest_approach_equation(const Vec3& radii_a,
                                                            const Vec3& radii_b,
                                                            const Mat3& rot_b, const Vec3& n,
                                                            double u) {
  Problem p = make_problem(radii_a, radii_b, rot_b, n);
  FEval e = evaluate_f(p, u, true);
  return ClosestApproachEquation{e.f, e.df};
}

ClosestApproachResult ellipsoid_closest_approach(const Vec3& radii_a, const Pose& pa,
                                                 const Vec3& radii_b, const Pose& pb,
                                                 const ClosestApproachOptions& options) {
  IMPETUS_ASSERT(radii_a.minCoeff() > 0 && radii_b.minCoeff() > 0, "ellipsoid radii must be > 0");
  ClosestApproachResult r;
  const Quat qa_inv = pa.orientation.conjugate();
  const Vec3 delta = pb.position - pa.position;
  const double centre_distance = delta.norm();
  const double scale = std::max(radii_a.maxCoeff(), radii_b.maxCoeff());

  // Inter-centre direction in a's frame. Coincident centres have no direction: use a's shortest
  // axis, along which a is thinnest (the closest approach is then smallest for a).
  Vec3 n_local;
  if (centre_distance > 1e-12 * scale) {
    n_local = qa_inv * (delta / centre_distance);
    n_local.normalize();
  } else {
    Eigen::Index k = 0;
    radii_a.minCoeff(&k);
    n_local = Vec3::Unit(k);
  }
  const Mat3 rot_b = (qa_inv * pb.orientation).normalized().toRotationMatrix();
  const Problem p = make_problem(radii_a, radii_b, rot_b, n_local);

  Solve s;
  switch (options.method) {
    case ClosestApproachMethod::NewtonBisection: s = solve_newton_bisection(p, options); break;
    case ClosestApproachMethod::FixedPoint: s = solve_fixed_point(p, options); break;
    case ClosestApproachMethod::Steffensen: s = solve_steffensen(p, options); break;
  }
  double u = s.u;
  const bool in_range = finite(u) && u > 0.0 && u < 1.0;
  r.converged = s.converged && in_range;
  // A failed unbracketed method may leave u anywhere; keep the outputs finite.
  if (!in_range) u = 0.5;

  // Outputs at the final u (paper 1, §2.2: d from eqs. 8/9, x from eq. 6). d1 (eq. 8) loses
  // relative accuracy as u → 1 (through 1/(1−u)), d2 (eq. 9) as u → 0 (through 1/u): report the
  // better one. For any u the true d lies between d1 and d2: at d1 the contact curve's point x(u)
  // is on e1 and on a copy of e2 scaled by d1/d2 about its centre, both tangent there with
  // antiparallel gradients, so that copy touches e1 externally; e2 itself therefore overlaps e1
  // at d1 when d1 < d2 (and clears it at d2, by the same argument with e1 scaled), and vice versa.
  const CurvePoint c = to_point(evaluate_f(p, u, false).c);
  const double d1 = 1.0 / ((1.0 - u) * std::sqrt(c.B));
  const double d2 = 1.0 / (u * std::sqrt(c.A));
  const double d = u <= 0.5 ? d1 : d2;
  // x(u) = (1−u) d1 w = w / sqrt(wᵀE1w): on e1's surface exactly, whatever the accuracy of u.
  const Vec3 x = c.w / std::sqrt(c.B);
  const Vec3 normal_local = c.v.normalized();  // ∇e1(x) = 2 E1 x ∝ E1 w
  r.distance = d;
  r.distance_lower = std::min(d1, d2);
  r.distance_upper = std::max(d1, d2);
  r.overlap = centre_distance < d;
  r.u = u;
  r.iterations = s.iterations;
  r.direction = quat_rotate(pa.orientation, n_local);
  r.contact_point = pa.apply(x);
  r.normal = quat_rotate(pa.orientation, normal_local);
  r.support_a = normal_local.dot(x);
  r.support_b = normal_local.dot(d * n_local - x);
  return r;
}

}  // namespace impetus
