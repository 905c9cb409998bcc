// `impetus query` type `mcd` (paper 2) against independent references: moving spheres and a
// rotating capsule in closed form, passing capsules by dense sampling of our own segment
// distance, a box sliding over a box (and over the same box as a mesh) by its face gap. Times
// are absolute (query-format.md): a query over [t0, t1] starts from the pose given at t = 0.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "tests/tools/cli_query_test_util.h"

namespace impetus::test {
namespace {

struct MovingCapsule {
  double radius;
  double half_length;
  V3 x0;
  Q4 q0;
  V3 v;
  V3 w;

  json to_json() const {
    return {{"shape", {{"type", "capsule"}, {"radius", radius}, {"half_length", half_length}}},
            {"position", vjson(x0)},
            {"orientation", json::array({q0[0], q0[1], q0[2], q0[3]})},
            {"linear_velocity", vjson(v)},
            {"angular_velocity", vjson(w)}};
  }
  // Segment end points at absolute time t.
  std::array<V3, 2> segment(double t) const {
    const Q4 q = quat_mul(quat_exp(w, t), q0);
    const V3 c = add3(x0, scale3(v, t));
    const V3 axis = rotate_by(q, {0, 0, half_length});
    return {sub3(c, axis), add3(c, axis)};
  }
};

double point_segment_distance(const V3& p, const std::array<V3, 2>& s) {
  const V3 d = sub3(s[1], s[0]);
  const double len2 = dot3(d, d);
  double u = len2 > 0 ? dot3(sub3(p, s[0]), d) / len2 : 0;
  u = std::clamp(u, 0.0, 1.0);
  return norm3(sub3(p, add3(s[0], scale3(d, u))));
}

// Segment–segment distance: the distance from a point of segment a to segment b is convex in
// the point's parameter, so ternary search finds the minimum.
double segment_distance(const std::array<V3, 2>& a, const std::array<V3, 2>& b) {
  double lo = 0;
  double hi = 1;
  auto f = [&](double u) {
    return point_segment_distance(add3(a[0], scale3(sub3(a[1], a[0]), u)), b);
  };
  for (int i = 0; i < 100; ++i) {
    const double m1 = lo + (hi - lo) / 3;
    const double m2 = hi - (hi - lo) / 3;
    if (f(m1) < f(m2)) hi = m2; else lo = m1;
  }
  return f(0.5 * (lo + hi));
}

// The true minimum of δ over [t0, t1]: dense samples, then golden refinement around the best.
template <typename F>
double dense_minimum(F delta, double t0, double t1, double* at) {
  constexpr int kSamples = 20001;
  const double h = (t1 - t0) / (kSamples - 1);
  int best = 0;
  double best_value = delta(t0);
  for (int i = 1; i < kSamples; ++i) {
    const double value = delta(t0 + h * i);
    if (value < best_value) {
      best_value = value;
      best = i;
    }
  }
  double lo = std::max(t0, t0 + h * (best - 1));
  double hi = std::min(t1, t0 + h * (best + 1));
  for (int i = 0; i < 100; ++i) {
    const double m1 = lo + (hi - lo) / 3;
    const double m2 = hi - (hi - lo) / 3;
    if (delta(m1) < delta(m2)) hi = m2; else lo = m1;
  }
  const double refined = delta(0.5 * (lo + hi));
  if (refined < best_value) {
    *at = 0.5 * (lo + hi);
    return refined;
  }
  *at = t0 + h * best;
  return best_value;
}

json mcd_query(const std::string& id, const json& a, const json& b, double t0, double t1,
               double tolerance, const std::string& method) {
  json q = {{"id", id}, {"type", "mcd"}, {"a", a}, {"b", b},
            {"interval", json::array({t0, t1})}, {"tolerance", tolerance}};
  if (!method.empty()) q["method"] = method;
  return q;
}

// A certified result: the bracket holds the truth and is within the tolerance, `mcd` is within
// the tolerance of the truth, and δ(time) is mcd.
template <typename F>
void expect_certified(const json& r, double truth, double tolerance, F delta) {
  SCOPED_TRACE(r.dump());
  const double lower = r.at("lower_bound").get<double>();
  const double upper = r.at("upper_bound").get<double>();
  const double mcd = r.at("mcd").get<double>();
  constexpr double kSlack = 1e-9;  // the reference's own accuracy
  EXPECT_TRUE(r.at("certified").get<bool>());
  EXPECT_LE(lower, truth + kSlack);
  EXPECT_GE(upper, truth - kSlack);
  EXPECT_LE(upper - lower, tolerance * (1 + 1e-9));
  EXPECT_GE(mcd, truth - kSlack);
  EXPECT_LE(mcd, truth + tolerance + kSlack);
  EXPECT_NEAR(delta(r.at("time").get<double>()), mcd, 1e-9);
  EXPECT_GT(r.at("evaluations").get<int>(), 0);
}

json sphere_object(double r, const V3& x0, const V3& v) {
  return {{"shape", {{"type", "sphere"}, {"radius", r}}}, {"position", vjson(x0)},
          {"linear_velocity", vjson(v)}};
}

TEST_F(CliQueryTest, McdOfCrossingSpheresMatchesClosedForm) {
  // δ(t) = |Δp + Δv t| − (r_a + r_b), minimal at t* = −Δp·Δv/|Δv|² (clamped to the interval).
  const V3 pa = {-2, 0.1, 0};
  const V3 va = {1.5, 0, 0};
  const V3 pb = {2, -0.1, 0.05};
  const V3 vb = {-1.5, 0, 0};
  auto delta = [&](double t) {
    return norm3(sub3(add3(pb, scale3(vb, t)), add3(pa, scale3(va, t)))) - 0.7;
  };
  const V3 dp = sub3(pb, pa);
  const V3 dv = sub3(vb, va);
  const double t_star = -dot3(dp, dv) / dot3(dv, dv);
  const double truth = delta(t_star);
  ASSERT_LT(truth, 0);  // they interpenetrate: mcd is −(penetration depth)
  const json a = sphere_object(0.3, pa, va);
  const json b = sphere_object(0.4, pb, vb);
  constexpr double kTol = 1e-6;
  json queries = json::array();
  for (const char* method : {"", "hybrid", "conservative_advancement", "adaptive_subdivision"}) {
    queries.push_back(mcd_query(std::string("m_") + method, a, b, 0, 2, kTol, method));
  }
  // Sampling needs 1 + μ(t1 − t0)/(2ε) samples (eq. 6.3): 300,001 at ε = 1e-5 (at 1e-6 it would
  // exceed the evaluation cap and come back uncertified).
  queries.push_back(mcd_query("m_sampling", a, b, 0, 2, 10 * kTol, "sampling"));
  queries.push_back(mcd_query("golden", a, b, 0, 2, kTol, "golden_section"));
  // Over [2, 3] the spheres only separate: the minimum is at t = 2 (absolute time).
  queries.push_back(mcd_query("late", a, b, 2, 3, kTol, "hybrid"));
  const json results = run_queries(queries);
  ASSERT_EQ(results.size(), 7u);
  for (int i = 0; i < 5; ++i) {
    expect_certified(results[i], truth, i < 4 ? kTol : 10 * kTol, delta);
    EXPECT_NEAR(results[i].at("time").get<double>(), t_star, 1e-3);
  }
  EXPECT_EQ(results[0].at("method"), "hybrid");  // the default for spheres/capsules
  // Golden section gives no certificate, but δ is unimodal here so it finds the minimum.
  EXPECT_NEAR(results[5].at("mcd").get<double>(), truth, kTol);
  EXPECT_NEAR(delta(results[5].at("time").get<double>()), results[5].at("mcd").get<double>(),
              1e-9);
  expect_certified(results[6], delta(2.0), kTol, delta);
  EXPECT_NEAR(results[6].at("time").get<double>(), 2.0, 1e-6);
}

TEST_F(CliQueryTest, McdOfRotatingCapsuleUsesAbsoluteTime) {
  // Capsule a (h = 0.5, r = 0.2) spins about x at w = 2 rad/s from upright; sphere b (r = 0.3) at
  // (0, D, 0). The tip −h·(0, −sin θ, cos θ) comes nearest at θ = π/2, t = π/4:
  // δ = D − h − 0.5. On θ where D sin θ >= h, δ(θ) = sqrt(D² − 2Dh sin θ + h²) − 0.5.
  const double D = 2;
  const double h = 0.5;
  const double w = 2;
  const MovingCapsule a{0.2, h, {0, 0, 0}, {1, 0, 0, 0}, {0, 0, 0}, {w, 0, 0}};
  auto delta = [&](double t) {
    return segment_distance(a.segment(t), {V3{0, D, 0}, V3{0, D, 0}}) - 0.5;
  };
  const json b = sphere_object(0.3, {0, D, 0}, {0, 0, 0});
  constexpr double kTol = 1e-7;
  json queries = json::array();
  for (const char* method : {"hybrid", "conservative_advancement", "adaptive_subdivision"}) {
    queries.push_back(mcd_query(std::string("whole_") + method, a.to_json(), b, 0.5, 1.5, kTol,
                                method));
    queries.push_back(mcd_query(std::string("late_") + method, a.to_json(), b, 0.9, 1.5, kTol,
                                method));
  }
  const json results = run_queries(queries);
  ASSERT_EQ(results.size(), 6u);
  const double late_truth = std::sqrt(D * D - 2 * D * h * std::sin(2 * 0.9) + h * h) - 0.5;
  for (int i = 0; i < 3; ++i) {
    expect_certified(results[2 * i], D - h - 0.5, kTol, delta);
    EXPECT_NEAR(results[2 * i].at("time").get<double>(), kPi / 4, 1e-3);
    // Starting at t = 0.9 from the pose given at t = 0 (not from θ = 0 at t = 0.9).
    expect_certified(results[2 * i + 1], late_truth, kTol, delta);
    EXPECT_NEAR(results[2 * i + 1].at("time").get<double>(), 0.9, 1e-6);
  }
}

TEST_F(CliQueryTest, McdOfPassingCapsulesMatchesDenseSampling) {
  // a lies along x and turns about z; b lies along y, 0.2 above, turning about z too, and moves
  // across a: the core segments stay 0.2 apart in z, so δ = segment distance − (r_a + r_b)
  // exactly (eq. 3.1), and dips to −0.2 when they cross.
  const double s = std::sqrt(0.5);
  const MovingCapsule a{0.25, 1.0, {0, 0, 0}, {s, 0, s, 0}, {0, 0, 0}, {0, 0, 0.5}};
  const MovingCapsule b{0.15, 0.6, {-3, -0.4, 0.2}, {s, -s, 0, 0}, {2, 0.3, 0}, {0, 0, 0.7}};
  auto delta = [&](double t) { return segment_distance(a.segment(t), b.segment(t)) - 0.4; };
  for (double t : {0.0, 1.0, 2.5}) {
    ASSERT_GE(segment_distance(a.segment(t), b.segment(t)), 0.2 - 1e-12);
  }
  double t_min = 0;
  const double truth = dense_minimum(delta, 0, 3, &t_min);
  ASSERT_LT(truth, 0);
  constexpr double kTol = 1e-5;
  json queries = json::array();
  for (const char* method :
       {"hybrid", "conservative_advancement", "adaptive_subdivision", "sampling"}) {
    queries.push_back(mcd_query(method, a.to_json(), b.to_json(), 0, 3, kTol, method));
  }
  json few = mcd_query("few_samples", a.to_json(), b.to_json(), 0, 3, kTol, "sampling");
  few["samples"] = 40;
  queries.push_back(few);
  const json results = run_queries(queries);
  ASSERT_EQ(results.size(), 5u);
  for (int i = 0; i < 4; ++i) expect_certified(results[i], truth, kTol, delta);
  // 40 samples: a valid but wide bracket, not certified to 1e-5.
  const json& r = results[4];
  EXPECT_EQ(r.at("evaluations").get<int>(), 40);
  EXPECT_LE(r.at("lower_bound").get<double>(), truth + 1e-9);
  EXPECT_GE(r.at("mcd").get<double>(), truth - 1e-9);
  EXPECT_FALSE(r.at("certified").get<bool>());
}

json box_object(const V3& half, const V3& x0, const V3& v) {
  return {{"shape", {{"type", "box"}, {"half_extents", vjson(half)}}}, {"position", vjson(x0)},
          {"linear_velocity", vjson(v)}};
}

// A box as an inline triangle mesh (outward triangles), same local frame as a box shape.
json box_mesh_shape(const V3& h) {
  json vertices = json::array();
  for (int k = 0; k < 8; ++k) {
    vertices.push_back({(k & 1) ? h[0] : -h[0], (k & 2) ? h[1] : -h[1], (k & 4) ? h[2] : -h[2]});
  }
  const json triangles = json::parse(R"([[0,4,6],[0,6,2],[1,3,7],[1,7,5],[0,1,5],[0,5,4],
                                          [2,6,7],[2,7,3],[0,2,3],[0,3,1],[4,5,7],[4,7,6]])");
  return {{"type", "mesh"}, {"vertices", vertices}, {"triangles", triangles}};
}

TEST_F(CliQueryTest, McdOfBoxSlidingOverBoxIsTheFaceGap) {
  // a (half 0.5) slides along x over b (half [1, 1, 0.2]); a's bottom face is at z = −0.5 and
  // b's top at −0.55: the distance is never below the 0.05 gap and equals it while their x
  // ranges overlap (|−3 + 2t| <= 1.5, t in [0.75, 2.25]).
  const json a = box_object({0.5, 0.5, 0.5}, {-3, 0.2, 0}, {2, 0, 0});
  json b = box_object({1, 1, 0.2}, {0, 0, -0.75}, {0, 0, 0});
  json b_mesh = b;
  b_mesh["shape"] = box_mesh_shape({1, 1, 0.2});
  constexpr double kTol = 1e-4;
  json queries = json::array({mcd_query("box", a, b, 0, 3, kTol, ""),
                              mcd_query("mesh", a, b_mesh, 0, 3, kTol, ""),
                              mcd_query("box_sampling", a, b, 0, 3, kTol, "sampling"),
                              mcd_query("before", a, b, 0, 0.5, kTol, "")});
  const json results = run_queries(queries);
  ASSERT_EQ(results.size(), 4u);
  // δ(t) for the reference: the boxes are axis-aligned, so the distance is the norm of the
  // per-axis gaps.
  auto delta = [](double t) {
    const double ax = -3 + 2 * t;
    const double gx = std::max(0.0, std::abs(ax) - 1.5);
    return std::sqrt(gx * gx + 0.05 * 0.05);  // the y ranges always overlap
  };
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(results[i].dump());
    EXPECT_EQ(results[i].at("method"), i < 2 ? "adaptive_subdivision" : "sampling");
    EXPECT_LE(results[i].at("lower_bound").get<double>(), 0.05 + 1e-9);
    EXPECT_NEAR(results[i].at("mcd").get<double>(), 0.05, kTol);
    EXPECT_LE(results[i].at("upper_bound").get<double>() -
                  results[i].at("lower_bound").get<double>(),
              kTol * (1 + 1e-9));
    const double t = results[i].at("time").get<double>();
    EXPECT_GE(t, 0.75 - 1e-3);
    EXPECT_LE(t, 2.25 + 1e-3);
  }
  // Over [0, 0.5] a only approaches: the minimum is at t = 0.5, δ = sqrt(0.5² + 0.05²).
  expect_certified(results[3], delta(0.5), kTol, delta);
}

}  // namespace
}  // namespace impetus::test
