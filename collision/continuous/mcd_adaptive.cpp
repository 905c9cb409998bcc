// FindMinDistAS (paper 2, §IV, Alg. 4.1): MCD of general shapes by adaptive subdivision of the
// time interval, with a certified error <= ε.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <queue>
#include <vector>

#include "collision/continuous/continuous_distance.h"
#include "collision/continuous/mcd_golden_section.h"
#include "collision/continuous/mcd_pair_distance.h"

namespace impetus {
namespace {

using mcd_detail::PairDistance;
using mcd_detail::PairSample;

constexpr double kInf = std::numeric_limits<double>::infinity();

// What one evaluated end point of a sub-interval tells about δ around it: lower-bounding lines
// δ(t) >= value[k] − slope[k]·|t − t_end|, and the witness points as material points (body
// frames) for predicting extrema.
struct EndPoint {
  double t = 0;
  double distance = kInf;
  int lines = 0;
  std::array<double, 2> value{};
  std::array<double, 2> slope{};
  Vec3 witness_a = Vec3::Zero();
  Vec3 witness_b = Vec3::Zero();
  bool separated = false;
};

EndPoint make_end_point(const PairDistance& pair, double t, const PairSample& s) {
  EndPoint e;
  e.t = t;
  e.distance = s.distance;
  if (!std::isfinite(s.distance)) return e;
  // Eq. 4.7: δ is Lipschitz with the pair's motion bound.
  e.value[0] = s.distance;
  e.slope[0] = pair.lipschitz();
  e.lines = 1;
  if (pair.convex()) {
    // Convex pairs: the support gap along the witness normal bounds δ from below at every time
    // and shrinks at most at the directional rate (the directional motion bound of eq. 3.3,
    // valid for penetration too by Lemma 3.1). Computed from support points, it stays valid even
    // if the normal is only approximate.
    e.value[1] = std::min(s.distance, pair.support_gap(s, s.normal));
    e.slope[1] = pair.directional_rate(s.normal);
    e.lines = 2;
  }
  if (s.distance > 0) {
    e.witness_a = s.pose_a.inverse_apply(s.point_a);
    e.witness_b = s.pose_b.inverse_apply(s.point_b);
    e.separated = true;
  }
  return e;
}

// Local lower bound LB_i on [a.t, b.t]. Eq. 4.8 is the case of one line per side:
// min(δa, δb) − (μ − |δa − δb|)/2. With several lines per side, max over all lines is convex,
// decreasing-then-increasing, so its minimum is at an end or where a line from a crosses a line
// from b.
double interval_lower_bound(const EndPoint& a, const EndPoint& b) {
  if (a.lines == 0 || b.lines == 0) return -kInf;
  auto envelope = [&](double t) {
    double f = -kInf;
    for (int i = 0; i < a.lines; ++i) f = std::max(f, a.value[i] - a.slope[i] * (t - a.t));
    for (int j = 0; j < b.lines; ++j) f = std::max(f, b.value[j] - b.slope[j] * (b.t - t));
    return f;
  };
  double lower = std::min(envelope(a.t), envelope(b.t));
  for (int i = 0; i < a.lines; ++i) {
    for (int j = 0; j < b.lines; ++j) {
      const double s = a.slope[i] + b.slope[j];
      if (!(s > 0)) continue;
      const double t = (a.value[i] - b.value[j] + a.slope[i] * a.t + b.slope[j] * b.t) / s;
      if (t > a.t && t < b.t) lower = std::min(lower, envelope(t));
    }
  }
  return lower;
}

struct Node {
  EndPoint a, b;
  double lower = -kInf;
};

struct NodeOrder {
  // Min-heap on the lower bound; ties by start time for a deterministic order.
  bool operator()(const Node& x, const Node& y) const {
    return x.lower != y.lower ? x.lower > y.lower : x.a.t > y.a.t;
  }
};

// Extrema refinement (eqs. 4.9–4.11): the witness points of an end point, followed as material
// points, predict where δ has its interior minimum; splitting there (and evaluating δ there)
// puts the known extremum values into the bounds of both halves, which is what eq. 4.9's
// subtraction of the excursions Σ E_j amounts to for a Lipschitz bound. The prediction costs
// poses only, no distance evaluation; it saves a few per cent of the evaluations on meshes, and
// is skipped for capsule pairs, whose closed-form distance costs less than the prediction.
// Falls back to the midpoint.
double split_time(const PairDistance& pair, const Node& node) {
  const double ta = node.a.t, tb = node.b.t;
  const double mid = 0.5 * (ta + tb);
  if (pair.capsules()) return mid;
  const EndPoint* e = node.a.separated ? &node.a : (node.b.separated ? &node.b : nullptr);
  if (e == nullptr) return mid;
  double best_t = mid, best_g = kInf;
  auto gap = [&](double t) {
    const Vec3 pa = pair.motion_a().at(t).apply(e->witness_a);
    const Vec3 pb = pair.motion_b().at(t).apply(e->witness_b);
    const double g = (pb - pa).squaredNorm();
    if (g < best_g) {
      best_g = g;
      best_t = t;
    }
    return g;
  };
  mcd_detail::golden_section_search(gap, ta, tb, 0.0, 0.0, 14);
  const double w = tb - ta;
  if (best_t < ta + 0.1 * w || best_t > tb - 0.1 * w) return mid;
  return best_t;
}

}  // namespace

McdResult mcd_adaptive_subdivision(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                                   const RigidMotion& motion_b, double t0, double t1,
                                   const McdOptions& options) {
  PairDistance pair(a, motion_a, b, motion_b);
  const double eps = options.tolerance;
  // Eq. 4.5–4.6: the global upper bound UB is the smallest evaluated distance (pair.best).
  Node root;
  root.a = make_end_point(pair, t0, pair(t0));
  root.b = make_end_point(pair, t1, pair(t1));
  root.lower = interval_lower_bound(root.a, root.b);
  std::priority_queue<Node, std::vector<Node>, NodeOrder> open;
  open.push(root);
  // Below this width a sub-interval is not split further (δ would have to be discontinuous to
  // get here); its bound then stays as is and the result may be uncertified.
  const double min_width = 1e-13 * std::max(1.0, std::max(std::abs(t0), std::abs(t1)));
  bool capped = false;
  double dropped_lower = kInf;
  while (!open.empty()) {
    // Best-first instead of the paper's depth-first recursion: the open interval with the
    // smallest LB_i decides. Once UB − LB_i <= ε for it, it does for all (Alg. 4.1, line 4).
    const Node& top = open.top();
    if (pair.best - top.lower <= eps) break;
    if (pair.evaluations >= options.max_evaluations) {
      capped = true;
      break;
    }
    const Node node = top;
    open.pop();
    if (node.b.t - node.a.t <= min_width) {
      dropped_lower = std::min(dropped_lower, node.lower);
      continue;
    }
    const double tm = split_time(pair, node);
    const EndPoint m = make_end_point(pair, tm, pair(tm));
    for (int side = 0; side < 2; ++side) {
      Node child;
      child.a = side == 0 ? node.a : m;
      child.b = side == 0 ? m : node.b;
      child.lower = interval_lower_bound(child.a, child.b);
      // Prune: no value below UB in there (Fig. 4.1(a)).
      if (child.lower < pair.best) open.push(child);
    }
  }
  double lower = open.empty() ? pair.best : open.top().lower;
  lower = std::min(lower, dropped_lower);
  return mcd_detail::make_result(pair, lower, eps, capped);
}

}  // namespace impetus
