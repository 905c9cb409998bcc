#include "collision/continuous/plane_toi.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "collision/base/assert.h"

namespace impetus {
namespace {

constexpr double kTwoPi = 2.0 * kPi;
// Geodesic slack [rad] on the region-boundary tests: covers rounding in u(t) and the face
// normals of merged (near-coplanar) hull faces.
constexpr double kArcMargin = 1e-9;

struct Range {
  double lo = 0;
  double hi = 0;
};

// Range of cos over the angle interval [a, b] (a <= b), exact up to rounding.
Range cos_range(double a, double b) {
  if (b - a >= kTwoPi) return {-1.0, 1.0};
  const double ca = std::cos(a), cb = std::cos(b);
  Range r{std::min(ca, cb), std::max(ca, cb)};
  if (kTwoPi * std::ceil(a / kTwoPi) <= b) r.hi = 1.0;                // a multiple of 2π inside
  if (kTwoPi * std::ceil((a - kPi) / kTwoPi) + kPi <= b) r.lo = -1.0;  // an odd multiple of π
  return r;
}

// Distance of one vertex to the plane under the uniform motion, in closed form (paper 3, §4.2,
// rewritten for the exponential-map motion instead of a quaternion curve):
//   d_v(t) = alpha + lin·t + rho·cos(omega·t − phi).
struct VertexCurve {
  double alpha = 0, lin = 0, rho = 0, omega = 0, phi = 0;

  double value(double t) const { return alpha + lin * t + rho * std::cos(omega * t - phi); }
  double derivative(double t) const { return lin - omega * rho * std::sin(omega * t - phi); }
  // Natural interval extension over [a, b].
  Range value_range(double a, double b) const {
    const Range c = cos_range(omega * a - phi, omega * b - phi);
    const double l0 = lin * a, l1 = lin * b;
    return {alpha + std::min(l0, l1) + rho * c.lo, alpha + std::max(l0, l1) + rho * c.hi};
  }
  Range derivative_range(double a, double b) const {
    // sin(x) = cos(x − π/2).
    const Range s = cos_range(omega * a - phi - 0.5 * kPi, omega * b - phi - 0.5 * kPi);
    return {lin - omega * rho * s.hi, lin - omega * rho * s.lo};
  }
};

// The plane seen from the moving body. With k = ω/|ω|, R(t) = exp([ω]× t)·R0 and Rodrigues'
// formula, for a body-frame vertex v:
//   normal·(R(t) v) = nk (k·R0 v)(1 − cos θ) + (normal·R0 v) cos θ + ((normal × k)·R0 v) sin θ,
// θ = |ω| t, nk = normal·k. The body-frame direction whose extreme vertex is nearest to the plane
// is u(t) = −R(t)ᵀ normal = −R0ᵀ exp(−[ω]× t) normal: a small circle about R0ᵀ k traversed at
// the constant speed |ω × normal| (the rotation about ω keeps the angle between ω and it).
struct PlaneMotion {
  double base = 0;   // normal·x0 − offset
  double lin = 0;    // normal·v
  double omega = 0;  // |ω|
  double nk = 0;
  Vec3 a, kb, c;     // body frame: R0ᵀ normal, R0ᵀ k, R0ᵀ (normal × k)
  double speed = 0;  // |u'(t)| = |ω × normal|, exact and constant (see above)
  double rate = 0;   // bound on |D'(t)|: |normal·v| + speed · max‖vertex‖

  PlaneMotion(const RigidMotion& motion, const Vec3& normal, double offset, double max_norm) {
    const Mat3 r0t = motion.pose0.orientation.toRotationMatrix().transpose();
    omega = motion.angular_velocity.norm();
    const Vec3 k = omega > 0 ? Vec3(motion.angular_velocity / omega) : Vec3(Vec3::UnitZ());
    base = normal.dot(motion.pose0.position) - offset;
    lin = normal.dot(motion.linear_velocity);
    nk = normal.dot(k);
    a = r0t * normal;
    kb = r0t * k;
    c = r0t * normal.cross(k);
    speed = motion.angular_velocity.cross(normal).norm();
    rate = std::abs(lin) + speed * max_norm;
  }

  // u(t) = −R0ᵀ exp(−[ω]× t) normal = −(a cos θ + c sin θ + nk·kb (1 − cos θ)).
  Vec3 direction(double t) const {
    const double th = omega * t;
    const double ct = std::cos(th), st = std::sin(th);
    const Vec3 u = -(a * ct + c * st + kb * (nk * (1.0 - ct)));
    return u.normalized();
  }
  VertexCurve curve(const Vec3& v) const {
    VertexCurve f;
    const double kv = nk * kb.dot(v);
    const double cc = a.dot(v) - kv;  // cos θ coefficient
    const double ss = c.dot(v);       // sin θ coefficient
    f.alpha = base + kv;
    f.lin = lin;
    f.omega = omega;
    f.rho = std::hypot(cc, ss);
    f.phi = std::atan2(ss, cc);
    return f;
  }
};

// First root of a decreasing function on [lo, hi] with f(lo) > 0 >= f(hi): Newton safeguarded by
// bisection (the root is unique there).
double polish_root(const VertexCurve& f, double lo, double hi, double time_tolerance,
                   int* iterations) {
  double flo = f.value(lo), fhi = f.value(hi);
  double t = (flo - fhi) > 0 ? lo + (hi - lo) * (flo / (flo - fhi)) : 0.5 * (lo + hi);
  for (int it = 0; it < 200; ++it) {
    ++*iterations;
    const double ft = f.value(t);
    if (ft > 0) lo = t; else hi = t;
    if (ft == 0 || hi - lo <= time_tolerance * 1e-3) return t;
    const double d = f.derivative(t);
    double next = d < 0 ? t - ft / d : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::abs(next - t) <= 4 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t))) {
      return next;
    }
    t = next;
  }
  return t;
}

// Time of the first critical point of f strictly after t (a local minimum when `minimum`), or
// +inf when f is monotone. f'(t) = lin − ω ρ sin(ψ), ψ = ωt − φ, vanishes at ψ = asin(r) + 2πk
// (maxima) and ψ = π − asin(r) + 2πk (minima), r = lin/(ωρ).
double next_critical(const VertexCurve& f, double t, bool minimum) {
  const double amp = f.omega * f.rho;
  if (!(amp > std::abs(f.lin))) return std::numeric_limits<double>::infinity();
  const double base = minimum ? kPi - std::asin(f.lin / amp) : std::asin(f.lin / amp);
  const double psi = f.omega * t - f.phi;
  double target = base + kTwoPi * std::ceil((psi - base) / kTwoPi);
  if (target <= psi) target += kTwoPi;
  return (target + f.phi) / f.omega;
}

// An interval of width <= time tolerance that interval Newton cannot exclude: f comes within dtol
// of the plane near `lo` (everything before was excluded). Decide exactly from f's critical
// points: f is monotone up to the next one. If the next is a minimum, the contact is the crossing
// before it (f <= 0 there) or, for a grazing touch, the minimum itself — the double root's
// location rather than the earlier time at which f first dipped below dtol.
double resolve_grazing(const VertexCurve& f, double lo, double end, double dtol, double ttol,
                       int* iterations) {
  const double t_min = next_critical(f, lo, true);
  const double t_max = next_critical(f, lo, false);
  if (t_max < t_min) return lo;  // f increases after lo: lo is (within ttol) the touching minimum
  const double t_c = std::min(t_min, end);
  const double f_c = f.value(t_c);
  if (f_c <= 0 && f.value(lo) > 0) return polish_root(f, lo, t_c, ttol, iterations);
  return f_c <= dtol ? t_c : lo;
}

// First t in [a, b] at which d_v(t) <= 0, or at which d_v comes within `dtol` of the plane at a
// stationary point (grazing). Interval Newton (paper 3, §5) over a left-first stack of intervals:
// an interval whose enclosure stays above dtol holds no contact; a monotone decreasing one holds
// a single root, polished by Newton; otherwise the Newton operator N(X) = m − g(m)/G'(X) with
// g = d_v − dtol (extended division when 0 ∈ G'(X)) cuts out a gap around the midpoint.
std::optional<double> first_root(const VertexCurve& f, double a, double b, double dtol,
                                 double ttol, int* iterations) {
  struct Item {
    double lo, hi;
  };
  std::array<Item, 256> stack;
  int top = 0;
  stack[top++] = {a, b};
  while (top > 0) {
    const Item x = stack[--top];
    ++*iterations;
    const double w = x.hi - x.lo;
    const double m = 0.5 * (x.lo + x.hi);
    const Range dr = f.derivative_range(x.lo, x.hi);
    const double fm = f.value(m);
    // Enclosure: natural extension intersected with the mean-value form.
    const Range nat = f.value_range(x.lo, x.hi);
    const double slope = std::max(std::abs(dr.lo), std::abs(dr.hi));
    const double lower = std::max(nat.lo, fm - 0.5 * w * slope);
    if (lower > dtol) continue;
    const double fa = f.value(x.lo);
    if (fa <= 0) return x.lo;  // everything left of x.lo was excluded: the contact starts here
    if (dr.lo >= 0) {          // increasing: the minimum is at x.lo
      if (fa <= dtol) return x.lo;
      continue;
    }
    if (dr.hi <= 0) {  // decreasing: a root iff f(hi) <= 0, and then a single one
      if (f.value(x.hi) <= 0) return polish_root(f, x.lo, x.hi, ttol, iterations);
      continue;        // a grazing minimum at x.hi is caught by the interval after it
    }
    if (w <= ttol || top + 2 > static_cast<int>(stack.size())) {
      return resolve_grazing(f, x.lo, b, dtol, ttol, iterations);
    }
    if (fm <= 0) {  // a crossing in (x.lo, m]; nothing after m can come first
      stack[top++] = {x.lo, m};
      continue;
    }
    const double gm = fm - dtol;
    if (gm > 0) {
      // N(X) ∩ X = [lo, m − g/G'hi] ∪ [m − g/G'lo, hi]  (G'lo < 0 < G'hi); both pieces are
      // shorter than half of X.
      const double left_end = m - gm / dr.hi;
      const double right_start = m - gm / dr.lo;
      if (right_start < x.hi) stack[top++] = {right_start, x.hi};
      if (left_end > x.lo) stack[top++] = {x.lo, left_end};
    } else {
      stack[top++] = {m, x.hi};
      stack[top++] = {x.lo, m};
    }
  }
  return std::nullopt;
}

// Candidate regions K for the interval: starting from the regions of both end points, add the
// neighbour across every boundary arc that the curve might reach, until every arc on the boundary
// of the union of K's regions is provably out of reach. The curve over [ts, te] has length L, so
// each of its points x satisfies G(u_s, x) + G(x, u_e) <= L: it lies in the spherical ellipse
// E_L with foci u_s, u_e (§4.1). E_L is connected (star-shaped about u_s along geodesics), so if
// no boundary arc of the union meets it — checked with the lower bound G(u_s, arc) + G(u_e, arc)
// of the focal-distance sum over the arc — E_L and the curve stay inside the union. With one
// region this is the paper's same-region interval, with two adjacent regions its adjacent-region
// interval; more regions handle curves running along a boundary or through a diagram vertex,
// where the paper's two cases never apply. Returns false when more than `cap` regions would be
// needed.
bool classify(const ExtremeVertexDiagram& diagram, const Vec3& us, const Vec3& ue, int vs, int ve,
              double length, int cap, std::vector<int>* regions) {
  regions->clear();
  regions->push_back(vs);
  if (ve != vs) regions->push_back(ve);
  const double reach = length + kArcMargin;
  for (std::size_t i = 0; i < regions->size(); ++i) {
    const int v = (*regions)[i];
    for (int k = diagram.arc_begin[v]; k < diagram.arc_begin[v + 1]; ++k) {
      const DiagramArc& arc = diagram.arcs[k];
      if (std::find(regions->begin(), regions->end(), arc.neighbor) != regions->end()) continue;
      const double ds = geodesic_distance_to_arc(us, arc);
      if (ds > reach || ds + geodesic_distance_to_arc(ue, arc) > reach) continue;
      if (static_cast<int>(regions->size()) >= cap) return false;
      regions->push_back(arc.neighbor);
    }
  }
  return true;
}

struct Sample {
  double t = 0;
  Vec3 u = Vec3::UnitZ();
  int vertex = 0;
  double distance = 0;  // D(t): distance of the extreme (nearest) vertex to the plane
};

}  // namespace

PlaneToiResult plane_toi(const ExtremeVertexDiagram& diagram, const RigidMotion& motion,
                         const Vec3& normal, double offset, double t0, double t1,
                         const PlaneToiOptions& options) {
  PlaneToiResult result;
  if (diagram.vertices.empty() || !(t1 >= t0)) return result;
  const PlaneMotion pm(motion, normal, offset, diagram.max_vertex_norm);
  const double dtol = options.distance_tolerance;
  const double ttol = options.time_tolerance;
  auto sample = [&](double t, int hint) {
    Sample s;
    s.t = t;
    s.u = pm.direction(t);
    s.vertex = diagram.locate(s.u, hint);
    s.distance = pm.curve(diagram.vertices[s.vertex]).value(t);
    return s;
  };

  const Sample s0 = sample(t0, 0);
  ++result.iterations;
  if (s0.distance <= dtol) {
    result.toi = t0;
    result.vertex = s0.vertex;
    return result;
  }
  // Below this width an interval is classified with as many regions as it takes, so the
  // subdivision always ends.
  const double min_width = std::max(ttol, 1e-15 * std::max(1.0, std::abs(t1)));
  const int all = diagram.vertex_count();
  std::vector<std::pair<Sample, Sample>> stack;
  stack.emplace_back(s0, sample(t1, s0.vertex));
  std::vector<int> regions;
  regions.reserve(16);
  while (!stack.empty()) {
    const auto [sa, sb] = stack.back();
    stack.pop_back();
    ++result.iterations;
    const double w = sb.t - sa.t;
    if (options.motion_bound_pruning) {
      // D is Lipschitz with constant `rate`: min over [ta, tb] >= (D(ta) + D(tb) − rate·w)/2.
      if (0.5 * (sa.distance + sb.distance - pm.rate * w) > dtol) continue;
    }
    // Length of the curve u(t) over the interval: exact for the uniform rotation (constant speed
    // |ω × normal|); paper 3 §3.2 bounds it by √3|ω|·w for a general quaternion curve.
    const double length = pm.speed * w * (1 + 1e-12);
    const bool leaf = w <= min_width;
    if (classify(diagram, sa.u, sb.u, sa.vertex, sb.vertex, length,
                 leaf ? all : std::max(1, options.max_candidates), &regions)) {
      // §4.2: on this interval D(t) = min over the candidate regions' vertices of d_v(t).
      std::optional<double> best;
      int best_vertex = -1;
      for (int v : regions) {
        const VertexCurve f = pm.curve(diagram.vertices[v]);
        const std::optional<double> root = first_root(f, sa.t, sb.t, dtol, ttol, &result.iterations);
        if (root && (!best || *root < *best || (*root == *best && v < best_vertex))) {
          best = root;
          best_vertex = v;
        }
      }
      if (best) {
        result.toi = best;
        result.vertex = best_vertex;
        return result;
      }
      continue;
    }
    const Sample sm = sample(0.5 * (sa.t + sb.t), sa.vertex);
    stack.emplace_back(sm, sb);
    stack.emplace_back(sa, sm);
  }
  return result;
}

PlaneToiResult plane_toi(const ConvexHull& hull, const RigidMotion& motion, const Vec3& normal,
                         double offset, double t0, double t1, const PlaneToiOptions& options) {
  return plane_toi(build_extreme_vertex_diagram(hull), motion, normal, offset, t0, t1, options);
}

namespace {

// Shared discrete stepping; `nearest(t, pose)` returns the index of the vertex nearest to the
// plane at that pose. Distances use the motion's own pose (quaternion exponential map), not the
// closed form of the extreme-vertex method, so the two methods are computed independently.
template <class Nearest>
PlaneToiResult discrete_search(const std::vector<Vec3>& vertices, const RigidMotion& motion,
                               const Vec3& normal, double offset, double t0, double t1, double dt,
                               const PlaneToiOptions& options, Nearest&& nearest) {
  PlaneToiResult result;
  if (vertices.empty() || !(t1 >= t0) || !(dt > 0)) return result;
  int vertex = -1;
  auto distance = [&](double t) {
    ++result.iterations;
    const Pose pose = motion.at(t);
    vertex = nearest(pose);
    return normal.dot(pose.apply(vertices[vertex])) - offset;
  };
  double prev_t = t0;
  if (distance(t0) <= 0) {
    result.toi = t0;
    result.vertex = vertex;
    return result;
  }
  for (long long k = 1;; ++k) {
    const double t = std::min(t1, t0 + static_cast<double>(k) * dt);
    if (distance(t) <= 0) {
      // Bisection of the bracketing step [prev_t, t].
      double lo = prev_t, hi = t;
      int hi_vertex = vertex;
      while (hi - lo > options.time_tolerance * 1e-3) {
        const double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) break;
        if (distance(mid) <= 0) {
          hi = mid;
          hi_vertex = vertex;
        } else {
          lo = mid;
        }
      }
      result.toi = hi;
      result.vertex = hi_vertex;
      return result;
    }
    if (t >= t1) break;
    prev_t = t;
  }
  return result;
}

}  // namespace

PlaneToiResult plane_toi_discrete(const ConvexHull& hull, const RigidMotion& motion,
                                  const Vec3& normal, double offset, double t0, double t1,
                                  double dt, const PlaneToiOptions& options) {
  return discrete_search(hull.vertices, motion, normal, offset, t0, t1, dt, options,
                         [&](const Pose& pose) {
                           return hull.support_index(Vec3(-pose.inverse_rotate(normal)));
                         });
}

PlaneToiResult plane_toi_discrete(const ExtremeVertexDiagram& diagram, const RigidMotion& motion,
                                  const Vec3& normal, double offset, double t0, double t1,
                                  double dt, const PlaneToiOptions& options) {
  int hint = 0;
  return discrete_search(diagram.vertices, motion, normal, offset, t0, t1, dt, options,
                         [&](const Pose& pose) {
                           hint = diagram.locate(Vec3(-pose.inverse_rotate(normal)), hint);
                           return hint;
                         });
}

std::optional<PlaneToiResult> plane_toi_for_shape(const Shape& shape, const RigidMotion& motion,
                                                  const Vec3& normal, double offset, double t0,
                                                  double t1, double discrete_dt,
                                                  std::string* error) {
  auto fail = [&](const char* why) -> std::optional<PlaneToiResult> {
    if (error != nullptr) *error = why;
    return std::nullopt;
  };
  const double length = normal.norm();
  if (!(length > 0) || !std::isfinite(length)) return fail("plane_toi: the plane normal is zero");
  if (!std::isfinite(t0) || !std::isfinite(t1) || !(t1 >= t0)) {
    return fail("plane_toi: interval must be finite with t0 <= t1");
  }
  ConvexHull box;
  const ConvexHull* hull = nullptr;
  if (shape.type == ShapeType::Box) {
    box = box_hull(shape.half_extents);
    hull = &box;
  } else if (shape.type == ShapeType::Convex && shape.hull != nullptr) {
    hull = shape.hull.get();
  } else {
    return fail("plane_toi: the moving object must be a box or a convex hull");
  }
  const Vec3 n = normal / length;
  const double d = offset / length;
  if (discrete_dt > 0) return plane_toi_discrete(*hull, motion, n, d, t0, t1, discrete_dt);
  return plane_toi(*hull, motion, n, d, t0, t1);
}

}  // namespace impetus
