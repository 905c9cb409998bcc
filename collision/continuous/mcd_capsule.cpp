// MCD of two capsules (paper 2, §III): the closed-form signed distance (eq. 3.1), the directional
// motion bound (eq. 3.3), and the conservative-advancement (Alg. 3.1) and hybrid (§III.D)
// methods. Spheres are handled as capsules with a zero-length core.
#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/base/assert.h"
#include "collision/continuous/continuous_distance.h"
#include "collision/continuous/mcd_golden_section.h"
#include "collision/distance/segment_closest.h"

namespace impetus {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

[[maybe_unused]] bool is_capsule_like(const Shape& s) {
  return s.type == ShapeType::Capsule || s.type == ShapeType::Sphere;
}

double core_half_length(const Shape& s) { return s.type == ShapeType::Capsule ? s.half_length : 0.0; }

// One capsule in motion: core segment x(t) ± h R(t) e_z.
struct MovingCapsule {
  const Shape* shape;
  const RigidMotion* motion;
  double h;
  // max over core points of the distance to the rotation axis through the body origin:
  // h·|axis × ω̂|, constant in time since the axis turns about ω (0 without rotation).
  double axis_offset;
  // Bound on |d²(n·h e(t))/dt²| for any fixed unit n: h e'' = ω × (ω × h e) = −|ω|² (h e)⊥ω, so
  // |n·h e''| <= |ω|²·axis_offset (constant in time, like axis_offset).
  double axis_acceleration;

  MovingCapsule(const Shape& s, const RigidMotion& m) : shape(&s), motion(&m), h(core_half_length(s)) {
    const double w = m.angular_velocity.norm();
    const Vec3 axis = m.pose0.rotate(Vec3::UnitZ());
    axis_offset = w > 0 ? h * axis.cross(m.angular_velocity / w).norm() : 0.0;
    axis_acceleration = w * w * axis_offset;
  }
};

// δ(t) at one time with what the second-order advancement step needs: the core centres and
// axes at that time.
struct CapsuleSample {
  CapsuleDistance d;
  Vec3 centre_a = Vec3::Zero(), centre_b = Vec3::Zero();
  Vec3 axis_a = Vec3::UnitZ(), axis_b = Vec3::UnitZ();
};

// First u > 0 with  α + β·u − k_a|a0 + a1·u| − k_b|b0 + b1·u| − ½·m·u² <= 0, given that the
// left side is positive at u = 0; infinity if it never gets there. The left side is concave
// (linear minus convex terms), so it crosses zero at most once for u > 0: walk its pieces
// between the kinks of the two absolute values and solve the crossing piece's quadratic.
double first_crossing(double alpha, double beta, double ka, double a0, double a1, double kb,
                      double b0, double b1, double m) {
  auto f = [&](double u) {
    return alpha + beta * u - ka * std::abs(a0 + a1 * u) - kb * std::abs(b0 + b1 * u) -
           0.5 * m * u * u;
  };
  double kinks[2] = {kInf, kInf};
  if (a1 != 0 && -a0 / a1 > 0) kinks[0] = -a0 / a1;
  if (b1 != 0 && -b0 / b1 > 0) kinks[1] = -b0 / b1;
  if (kinks[0] > kinks[1]) std::swap(kinks[0], kinks[1]);
  double start = 0;
  for (int piece = 0; piece < 3; ++piece) {
    const double end = piece < 2 ? kinks[piece] : kInf;
    if (!(end > start)) continue;
    if (end != kInf && f(end) > 0) {
      start = end;
      continue;
    }
    // On this piece the signs of a0 + a1·u and b0 + b1·u are those at its middle.
    const double probe = end == kInf ? start + 1 : 0.5 * (start + end);
    const double sa = a0 + a1 * probe >= 0 ? 1.0 : -1.0;
    const double sb = b0 + b1 * probe >= 0 ? 1.0 : -1.0;
    const double c0 = alpha - ka * sa * a0 - kb * sb * b0;  // α' + β'u − ½ m u² on the piece
    const double c1 = beta - ka * sa * a1 - kb * sb * b1;
    const double disc = c1 * c1 + 2 * m * c0;
    if (disc < 0) return end == kInf ? kInf : start;  // rounding: no crossing found, stay safe
    const double root = c1 >= 0 ? (m > 0 ? (c1 + std::sqrt(disc)) / m : kInf)
                                : 2 * c0 / (std::sqrt(disc) - c1);
    return std::clamp(root, start, end);
  }
  return kInf;
}

// δ(t) of the pair with an evaluation counter and the best value seen (the upper bound).
class CapsulePair {
 public:
  CapsulePair(const Shape& a, const RigidMotion& ma, const Shape& b, const RigidMotion& mb)
      : a_(a, ma), b_(b, mb), relative_velocity_(ma.linear_velocity - mb.linear_velocity) {}

  CapsuleSample operator()(double t) {
    ++evaluations;
    const Pose pa = a_.motion->at(t), pb = b_.motion->at(t);
    CapsuleSample s;
    s.d = capsule_signed_distance(*a_.shape, pa, *b_.shape, pb);
    s.centre_a = pa.position;
    s.centre_b = pb.position;
    s.axis_a = pa.rotate(Vec3::UnitZ());
    s.axis_b = pb.rotate(Vec3::UnitZ());
    if (s.d.distance < best || (s.d.distance == best && t < best_time)) {
      best = s.d.distance;
      best_time = t;
    }
    return s;
  }

  // Paper 2, eq. 3.3 adapted to uniform motion: along a fixed direction n (a → b), the support
  // gap of the two cores, which bounds δ from below for any n and equals δ for the closest
  // direction (also when overlapping: δ = max over n of the gap, Lemma 3.1), changes at most at
  //   μ = |n·(v_a − v_b)| + |ω_a × n|·ρ_a + |ω_b × n|·ρ_b,
  // ρ = max distance of a core point to its rotation axis. A core point r (from the body
  // origin) moves along n at (ω × r)·n, and |(ω × r)·n| <= |r⊥|·|ω × n|, r⊥ ⟂ ω. The radii do not
  // enter (unlike the paper's r_A term): the ball's support point moves with its core point.
  double motion_bound(const Vec3& n) const {
    return std::abs(n.dot(relative_velocity_)) +
           a_.motion->angular_velocity.cross(n).norm() * a_.axis_offset +
           b_.motion->angular_velocity.cross(n).norm() * b_.axis_offset;
  }

  double min_distance_bound() const { return -(a_.shape->radius + b_.shape->radius); }

  // How far (in time, u >= 0 in direction `dir`) δ provably stays above level d from sample s:
  // the second-order extension of eq. 3.4. Along the fixed direction n of s, the support gap
  //   g(u) = n·(c_b − c_a)(u) − h_a|n·e_a(u)| − h_b|n·e_b(u)| − (r_a + r_b)
  // bounds δ from below at every time (Lemma 3.1) and equals δ at u = 0. The centres move
  // linearly, and |n·h e(u)| <= |n·h e + u·n·h e'| + ½ u² |ω|² axis_offset (Taylor, with the
  // bound on e'' above), so g(u) >= a concave piecewise quadratic whose first zero crossing at
  // level d is a certified step. Near a local minimum of δ at height c above d this step is
  // ~√(c/|ω|²ρ) instead of c/μ: advancement no longer crawls when δ grazes a level while the
  // bodies spin fast (issue: long capsules at 14–17 rad/s needed > 2·10⁶ evaluations).
  double second_order_step(const CapsuleSample& s, int dir, double d) const {
    const Vec3& n = s.d.normal;
    const double sign = dir;
    const Vec3 ea = a_.h * s.axis_a, eb = b_.h * s.axis_b;
    const double alpha =
        n.dot(s.centre_b - s.centre_a) - (a_.shape->radius + b_.shape->radius) - d;
    const double beta = sign * n.dot(b_.motion->linear_velocity - a_.motion->linear_velocity);
    const double a0 = n.dot(ea), a1 = sign * n.dot(a_.motion->angular_velocity.cross(ea));
    const double b0 = n.dot(eb), b1 = sign * n.dot(b_.motion->angular_velocity.cross(eb));
    const double gap0 = alpha - std::abs(a0) - std::abs(b0);
    if (!(gap0 > 0)) return 0;  // rounding at a reached level: the first-order step decides
    return first_crossing(alpha, beta, 1.0, a0, a1, 1.0, b0, b1,
                          a_.axis_acceleration + b_.axis_acceleration);
  }

  int evaluations = 0;
  double best = kInf;
  double best_time = 0;

 private:
  MovingCapsule a_, b_;
  Vec3 relative_velocity_;
};

// One side of conservative advancement: the region between the interval end it started from and
// `t` is certified to have δ >= the level it was advanced at. Holds the sample at `t` if taken.
struct Pointer {
  double t = 0;
  int dir = 1;  // +1 forward from t0, −1 backward from t1
  bool sampled = false;
  CapsuleSample sample;
};

enum class Step { Reached, Advanced, Exhausted };

// One advancement step at level d: the longer of eq. 3.4's Δt = (δ − d)/μ and the second-order
// step (both certify δ > d on the stretch they skip). `limit` is where the other side's
// certified region begins (t1 or t0 for one-sided advancement). `reach_slack` η > 0 ends the
// Zeno sequence near a level that is touched tangentially: δ <= d + η counts as reaching d.
Step advance(CapsulePair& pair, Pointer& p, double d, double reach_slack, double limit) {
  if (!p.sampled) {
    p.sample = pair(p.t);
    p.sampled = true;
  }
  const double gap = p.sample.d.distance - d;
  if (gap <= reach_slack) return Step::Reached;
  const double mu = pair.motion_bound(p.sample.d.normal);
  const double dt =
      std::max(mu > 0 ? gap / mu : kInf, pair.second_order_step(p.sample, p.dir, d));
  const double next = p.t + p.dir * dt;
  if (p.dir > 0 ? next >= limit : next <= limit) return Step::Exhausted;
  p.t = next;
  p.sampled = false;
  return Step::Advanced;
}

McdResult finish(const CapsulePair& pair, double lower, double tolerance, bool capped) {
  McdResult r;
  r.mcd = pair.best;
  r.time = pair.best_time;
  r.upper_bound = pair.best;
  r.lower_bound = std::min(lower, pair.best);
  r.evaluations = pair.evaluations;
  r.certified = !capped && r.upper_bound - r.lower_bound <= tolerance;
  return r;
}

// Saved pointers of the latest level that was reached, valid for any level <= `level`.
struct Window {
  Pointer forward, backward;
  double level = kInf;
};

Window initial_window(double t0, double t1) {
  Window w;
  w.forward.t = t0;
  w.forward.dir = 1;
  w.backward.t = t1;
  w.backward.dir = -1;
  return w;
}

// Does δ reach level d on [t0, t1]? Two-sided (forward and backward interleaved, hybrid) or
// forward only (Alg. 3.1). On success the window's pointers move to where d was reached.
bool reaches_level(CapsulePair& pair, Window& window, double t0, double t1, double d, double slack,
                   bool two_sided, int max_evaluations, bool* capped) {
  // Saved pointers only certify δ >= window.level; a higher level restarts from the ends.
  Window w = d <= window.level ? window : initial_window(t0, t1);
  for (;;) {
    if (pair.evaluations >= max_evaluations) {
      *capped = true;
      return false;
    }
    // An exhausted step certified δ >= d up to the other side's certified region (or the
    // interval end): the level is not reached anywhere.
    const Step f = advance(pair, w.forward, d, slack, two_sided ? w.backward.t : t1);
    if (f == Step::Reached) break;
    if (f == Step::Exhausted) return false;
    if (two_sided) {
      const Step b = advance(pair, w.backward, d, slack, w.forward.t);
      if (b == Step::Reached) break;
      if (b == Step::Exhausted) return false;
    }
  }
  window = w;
  window.level = d;
  return true;
}

}  // namespace

CapsuleDistance capsule_signed_distance(const Shape& a, const Pose& pose_a, const Shape& b,
                                        const Pose& pose_b) {
  IMPETUS_ASSERT(is_capsule_like(a) && is_capsule_like(b), "capsule_signed_distance: capsules only");
  const Vec3 ha = pose_a.rotate(Vec3(0, 0, core_half_length(a)));
  const Vec3 hb = pose_b.rotate(Vec3(0, 0, core_half_length(b)));
  const Vec3 a0 = pose_a.position - ha, a1 = pose_a.position + ha;
  const Vec3 b0 = pose_b.position - hb, b1 = pose_b.position + hb;
  const SegmentClosest closest = closest_segment_segment(a0, a1, b0, b1);
  CapsuleDistance r;
  r.core_a = closest.p;
  r.core_b = closest.q;
  const Vec3 diff = r.core_b - r.core_a;
  const double len = diff.norm();
  // Paper 2, eq. 3.1: δ = dist(l_A, l_B) − (r_A + r_B), separation or −penetration alike.
  r.distance = len - (a.radius + b.radius);
  if (len > 0) {
    r.normal = diff / len;
  } else {
    // Cores meet: δ is the global minimum −(rA + rB); any direction serves.
    const Vec3 c = (a1 - a0).cross(b1 - b0);
    const Vec3 axis = (a1 - a0).squaredNorm() > 0 ? Vec3(a1 - a0) : Vec3(b1 - b0);
    if (c.squaredNorm() > 0) {
      r.normal = c.normalized();
    } else {
      r.normal = axis.squaredNorm() > 0 ? any_orthogonal(axis) : Vec3(Vec3::UnitZ());
    }
  }
  return r;
}

McdResult mcd_conservative_advancement(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                                       const RigidMotion& motion_b, double t0, double t1,
                                       const McdOptions& options) {
  IMPETUS_ASSERT(is_capsule_like(a) && is_capsule_like(b), "conservative advancement: capsules only");
  CapsulePair pair(a, motion_a, b, motion_b);
  const double eps = options.tolerance;
  const double slack = 0.25 * eps;
  // Alg. 3.1, lines 1–2: the range [d0, d1] holds the minimum.
  double lower = pair.min_distance_bound();
  Window window = initial_window(t0, t1);
  window.forward.sample = pair(t0);
  window.forward.sampled = true;
  pair(t1);
  bool capped = false;
  // Lines 3–11. A reached level lowers the upper bound to the value found (<= d + η), so each
  // pass shrinks the range to at most half plus η = ε/4 and the loop ends below ε.
  while (pair.best - lower > eps && !capped) {
    const double d = 0.5 * (lower + pair.best);
    if (!reaches_level(pair, window, t0, t1, d, slack, false, options.max_evaluations, &capped)) {
      if (!capped) lower = d;  // δ > d on all of [t0, t1]
    }
  }
  return finish(pair, lower, eps, capped);
}

McdResult mcd_hybrid(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                     const RigidMotion& motion_b, double t0, double t1, const McdOptions& options) {
  IMPETUS_ASSERT(is_capsule_like(a) && is_capsule_like(b), "hybrid MCD: capsules only");
  CapsulePair pair(a, motion_a, b, motion_b);
  const double eps = options.tolerance;
  const double slack = 0.25 * eps;
  double lower = pair.min_distance_bound();
  Window window = initial_window(t0, t1);
  window.forward.sample = pair(t0);
  window.forward.sampled = true;
  window.backward.sample = pair(t1);
  window.backward.sampled = true;
  bool capped = false;
  const double time_tolerance = 1e-12 * std::max(1.0, std::max(std::abs(t0), std::abs(t1)));
  auto distance_at = [&](double t) { return pair(t).d.distance; };
  // From a pointer that reached the last level, δ goes on down into the window: bracket that
  // local minimum by steps doubling away from the pointer, then golden section inside the bracket.
  // Without this, the golden section over the whole window may settle on another local minimum
  // while the one at the window's edge is only ever lowered by ε/2 per certification pass (fast
  // spinners: 10⁵ passes, the evaluation cap, an uncertified result).
  auto descend = [&](const Pointer& p, double limit) {
    if (!p.sampled) return;
    const double span = std::abs(limit - p.t);
    if (!(span > time_tolerance)) return;
    double t_prev = p.t, t_cur = p.t;
    double f_cur = p.sample.d.distance;
    double step = std::max(1e-9 * span, time_tolerance);
    double t_next = p.t, f_next = f_cur;
    for (;;) {
      t_next = p.dir > 0 ? std::min(limit, t_cur + step) : std::max(limit, t_cur - step);
      if (pair.evaluations >= options.max_evaluations) return;
      f_next = distance_at(t_next);
      if (f_next >= f_cur || t_next == limit) break;
      t_prev = t_cur;
      t_cur = t_next;
      f_cur = f_next;
      step *= 2;
    }
    const int budget = options.max_evaluations - pair.evaluations;
    mcd_detail::golden_section_search(distance_at, std::min(t_prev, t_next),
                                      std::max(t_prev, t_next), 0.01 * eps, time_tolerance,
                                      std::min(budget, 200));
  };
  auto refine = [&]() {
    descend(window.forward, window.backward.t);
    descend(window.backward, window.forward.t);
    // Golden section inside the window where the reached levels put the minimum (§III.D).
    const int budget = options.max_evaluations - pair.evaluations;
    mcd_detail::golden_section_search(distance_at, window.forward.t, window.backward.t, 0.01 * eps,
                                      time_tolerance, std::min(budget, 200));
  };
  // Optional phase 1 (the paper's order): range bisection with forward and backward advancement
  // interleaved; a level is decided as soon as either side reaches it or the two sides meet.
  const double switch_width = options.hybrid_switch > 0
                                  ? std::max(1.0, options.hybrid_switch) * eps
                                  : std::numeric_limits<double>::infinity();
  while (pair.best - lower > switch_width && !capped) {
    const double d = 0.5 * (lower + pair.best);
    if (!reaches_level(pair, window, t0, t1, d, slack, true, options.max_evaluations, &capped)) {
      if (!capped) lower = d;
    }
  }
  // Phase 2: golden section for a good upper bound, then certify it with one advancement pass at
  // level upper − 3ε/4. If that level is reached after all (the window held a lower local
  // minimum), the upper bound drops by at least ε/2 and we search the new window again.
  while (pair.best - lower > eps && !capped) {
    refine();
    if (pair.best - lower <= eps) break;
    const double d = std::max(0.5 * (lower + pair.best), pair.best - 0.75 * eps);
    if (!reaches_level(pair, window, t0, t1, d, slack, true, options.max_evaluations, &capped)) {
      if (!capped) lower = d;
    }
  }
  return finish(pair, lower, eps, capped);
}

}  // namespace impetus
