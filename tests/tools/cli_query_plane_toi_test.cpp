// `impetus query` type `plane_toi` (paper 3) against independent references: a cube falling
// flat and a cube rotating about an axis (first contact in closed form), and a tumbling convex
// polyhedron against our own dense-sampling search; the extreme-vertex and discrete methods
// must agree. `vertex` indexes the shape's vertex list as given.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/tools/cli_query_test_util.h"

namespace impetus::test {
namespace {

json cube_object(double h, const V3& x0, const Q4& q0, const V3& v, const V3& w) {
  return {{"shape", {{"type", "box"}, {"half_extents", vjson({h, h, h})}}},
          {"position", vjson(x0)},
          {"orientation", json::array({q0[0], q0[1], q0[2], q0[3]})},
          {"linear_velocity", vjson(v)},
          {"angular_velocity", vjson(w)}};
}

json toi_query(const std::string& id, const json& a, const V3& normal, double offset, double t0,
               double t1, double dt = 0) {
  json q = {{"id", id},
            {"type", "plane_toi"},
            {"a", a},
            {"plane", {{"normal", vjson(normal)}, {"offset", offset}}},
            {"interval", json::array({t0, t1})}};
  if (dt > 0) {
    q["method"] = "discrete";
    q["dt"] = dt;
  }
  return q;
}

TEST_F(CliQueryTest, PlaneToiOfFallingCubeIsClosedForm) {
  // Half size 0.5, centre at z = 3, falling at 2 m/s onto z = 0: toi = (3 − 0.5)/2 = 1.25 with
  // a bottom vertex (box vertices: bit j set = +h along axis j, so z-bit clear).
  const json cube = cube_object(0.5, {0.3, -0.2, 3}, {1, 0, 0, 0}, {0, 0, -2}, {0, 0, 0});
  const json results = run_queries(json::array({
      toi_query("ev", cube, {0, 0, 1}, 0, 0, 5),
      toi_query("discrete", cube, {0, 0, 1}, 0, 0, 5, 0.01),
      toi_query("too_short", cube, {0, 0, 1}, 0, 0, 1),
      toi_query("absolute", cube, {0, 0, 1}, 0, 1, 2),
      // normal·x = offset is rescaled: (0, 0, 2)·x = 0.4 is the plane z = 0.2.
      toi_query("scaled", cube, {0, 0, 2}, 0.4, 0, 5),
      // Already touching at t0: toi = t0.
      toi_query("late", cube, {0, 0, 1}, 0, 1.5, 2),
  }));
  ASSERT_EQ(results.size(), 6u);
  for (int i : {0, 1, 3}) {
    SCOPED_TRACE(results[i].dump());
    EXPECT_NEAR(results[i].at("toi").get<double>(), 1.25, 1e-9);
    const int vertex = results[i].at("vertex").get<int>();
    EXPECT_GE(vertex, 0);
    EXPECT_LT(vertex, 4);
    EXPECT_NEAR(v3(results[i].at("point"))[2], 0, 1e-9);
    EXPECT_GE(results[i].at("iterations").get<int>(), 1);
  }
  EXPECT_TRUE(results[2].at("toi").is_null()) << results[2].dump();
  EXPECT_TRUE(results[2].at("vertex").is_null());
  EXPECT_NEAR(results[4].at("toi").get<double>(), 1.15, 1e-9);
  EXPECT_NEAR(results[5].at("toi").get<double>(), 1.5, 1e-12);
}

TEST_F(CliQueryTest, PlaneToiOfCubeRotatingAboutAnAxisIsClosedForm) {
  // Cube of half size h spinning about x at w, centre fixed at height z0 with h < z0 < h√2: the
  // lowest vertices (y and z bits clear) are at z0 − h(sin θ + cos θ) = z0 − √2 h sin(θ + π/4),
  // which first reaches 0 at θ* = asin(z0/(√2 h)) − π/4, t = θ*/w.
  const double h = 0.5;
  const double z0 = 0.6;
  const double w = 1.5;
  const double toi = (std::asin(z0 / (std::sqrt(2.0) * h)) - kPi / 4) / w;
  const json cube = cube_object(h, {1, 2, z0}, {1, 0, 0, 0}, {0, 0, 0}, {w, 0, 0});
  const json results = run_queries(json::array({
      toi_query("ev", cube, {0, 0, 1}, 0, 0, 2),
      toi_query("discrete", cube, {0, 0, 1}, 0, 0, 2, 0.001),
      // A plane above: solid half-space z >= z0 + 0.6 (normal −z). The highest vertices (y and
      // z bits set) are at z0 + √2 h sin(θ + π/4) and reach it at the same θ*.
      toi_query("above", cube, {0, 0, -1}, -(z0 + 0.6), 0, 2),
  }));
  ASSERT_EQ(results.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(results[i].dump());
    EXPECT_NEAR(results[i].at("toi").get<double>(), toi, 1e-9);
    EXPECT_EQ(results[i].at("vertex").get<int>() & 6, i < 2 ? 0 : 6);
  }
  EXPECT_NEAR(v3(results[2].at("point"))[2], z0 + 0.6, 1e-9);
}

TEST_F(CliQueryTest, PlaneToiOfTumblingConvexMatchesDenseSearch) {
  // A convex polyhedron given with an interior point first (so hull and input numbering differ)
  // falls and tumbles towards a tilted plane. Reference: the lowest input point's signed height
  // sampled every 1e-4 s, then bisection of the first step that reaches the plane.
  const std::vector<V3> points = {{0.02, 0.01, 0.03}, {0.6, 0, 0},     {-0.5, 0.1, 0},
                                  {0, 0.7, 0.1},      {0.1, -0.55, 0}, {0, 0, 0.8},
                                  {0.05, -0.1, -0.65}, {0.3, 0.3, 0.3}};
  const V3 x0 = {0.2, -0.1, 2.0};
  const Q4 q0 = {0.9, 0.3, -0.2, 0.1};
  const double qn = std::sqrt(0.81 + 0.09 + 0.04 + 0.01);
  const Q4 q0n = {q0[0] / qn, q0[1] / qn, q0[2] / qn, q0[3] / qn};
  const V3 v = {0.3, 0, -1};
  const V3 w = {0.7, -1.1, 0.4};
  const V3 normal = {0.1, 0.2, 1};
  const double offset = -0.3;
  const double len = norm3(normal);
  auto height = [&](int i, double t) {
    const V3 x = add3(add3(x0, scale3(v, t)), rotate_by(quat_mul(quat_exp(w, t), q0n), points[i]));
    return (dot3(normal, x) - offset) / len;
  };
  auto lowest = [&](double t) {
    double m = std::numeric_limits<double>::infinity();
    for (int i = 0; i < static_cast<int>(points.size()); ++i) m = std::min(m, height(i, t));
    return m;
  };
  double reference = -1;
  constexpr double kStep = 1e-4;
  for (int k = 1; k <= 40000; ++k) {
    if (lowest(k * kStep) <= 0) {
      double lo = (k - 1) * kStep;
      double hi = k * kStep;
      for (int j = 0; j < 60; ++j) {
        const double mid = 0.5 * (lo + hi);
        if (lowest(mid) <= 0) hi = mid; else lo = mid;
      }
      reference = hi;
      break;
    }
  }
  ASSERT_GT(reference, 0);

  json vertices = json::array();
  for (const V3& p : points) vertices.push_back(vjson(p));
  const json object = {{"shape", {{"type", "convex"}, {"vertices", vertices}}},
                       {"position", vjson(x0)},
                       {"orientation", json::array({q0[0], q0[1], q0[2], q0[3]})},
                       {"linear_velocity", vjson(v)},
                       {"angular_velocity", vjson(w)}};
  const json results = run_queries(json::array({
      toi_query("ev", object, normal, offset, 0, 4),
      toi_query("discrete", object, normal, offset, 0, 4, 1e-3),
  }));
  ASSERT_EQ(results.size(), 2u);
  for (const json& r : results) {
    SCOPED_TRACE(r.dump());
    const double toi = r.at("toi").get<double>();
    EXPECT_NEAR(toi, reference, 1e-8);
    const int vertex = r.at("vertex").get<int>();
    ASSERT_GE(vertex, 1);  // never the interior point
    ASSERT_LT(vertex, static_cast<int>(points.size()));
    EXPECT_NEAR(height(vertex, toi), 0, 1e-8);
    const V3 point = v3(r.at("point"));
    EXPECT_NEAR((dot3(normal, point) - offset) / len, 0, 1e-8);
  }
}

}  // namespace
}  // namespace impetus::test
