// `impetus query` type `closest_approach` (ellipsoids, paper 1) against independent references:
// spheres and axis-aligned ellipsoids in closed form, and for general poses the support-function
// characterisation of the touching distance along n (below), plus swap symmetry.
#include <array>
#include <cmath>
#include <random>
#include <string>

#include "tests/tools/cli_query_test_util.h"

namespace impetus::test {
namespace {

struct Ellipsoid {
  V3 radii;
  V3 centre;
  std::array<double, 4> q;  // [w, x, y, z], unit
};

json ellipsoid_json(const Ellipsoid& e) {
  return {{"shape", {{"type", "ellipsoid"}, {"radii", vjson(e.radii)}}},
          {"position", vjson(e.centre)},
          {"orientation", json::array({e.q[0], e.q[1], e.q[2], e.q[3]})}};
}

json closest_query(const std::string& id, const Ellipsoid& a, const Ellipsoid& b,
                   const std::string& method = "") {
  json q = {{"id", id}, {"type", "closest_approach"}, {"a", ellipsoid_json(a)},
            {"b", ellipsoid_json(b)}};
  if (!method.empty()) q["method"] = method;
  return q;
}

// Support function of a centred ellipsoid: h(m) = ‖diag(r) Rᵀ m‖.
double support(const Ellipsoid& e, const V3& m) {
  const std::array<double, 4> conj = {e.q[0], -e.q[1], -e.q[2], -e.q[3]};
  const V3 local = rotate_by(conj, m);
  return norm3({e.radii[0] * local[0], e.radii[1] * local[1], e.radii[2] * local[2]});
}

// Minimiser of a convex function on [lo, hi] by ternary search.
template <typename F>
double ternary_min(F f, double lo, double hi, double* arg) {
  for (int i = 0; i < 200; ++i) {
    const double m1 = lo + (hi - lo) / 3;
    const double m2 = hi - (hi - lo) / 3;
    if (f(m1) < f(m2)) hi = m2; else lo = m1;
  }
  *arg = 0.5 * (lo + hi);
  return f(*arg);
}

// Touching distance along unit n: b (centred at t·n) is disjoint from a (centred at 0) iff some
// m has t (m·n) > h_a(m) + h_b(m) (both symmetric), so d = inf over m·n > 0 of
// (h_a(m) + h_b(m)) / (m·n). With m = n + x e1 + y e2 (the ratio is scale-free) this is a convex
// function of (x, y), minimised by nested ternary search. Returns d; `normal` gets the argmin.
double reference_distance(const Ellipsoid& a, const Ellipsoid& b, const V3& n, V3* normal) {
  const V3 helper = std::abs(n[0]) < 0.6 ? V3{1, 0, 0} : V3{0, 1, 0};
  V3 e1 = cross3(n, helper);
  e1 = scale3(e1, 1 / norm3(e1));
  const V3 e2 = cross3(n, e1);
  auto f = [&](double x, double y) {
    const V3 m = add3(n, add3(scale3(e1, x), scale3(e2, y)));
    return support(a, m) + support(b, m);
  };
  constexpr double kRange = 40;
  auto inner = [&](double x) {
    double y = 0;
    return ternary_min([&](double yy) { return f(x, yy); }, -kRange, kRange, &y);
  };
  double x = 0;
  const double d = ternary_min(inner, -kRange, kRange, &x);
  double y = 0;
  ternary_min([&](double yy) { return f(x, yy); }, -kRange, kRange, &y);
  const V3 m = add3(n, add3(scale3(e1, x), scale3(e2, y)));
  *normal = scale3(m, 1 / norm3(m));
  return d;
}

std::array<double, 4> random_quaternion(std::mt19937_64& rng) {
  std::normal_distribution<double> g(0, 1);
  std::array<double, 4> q = {g(rng), g(rng), g(rng), g(rng)};
  const double len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (double& c : q) c /= len;
  return q;
}

TEST_F(CliQueryTest, ClosestApproachOfSpheresIsSumOfRadii) {
  // Spheres as ellipsoids: d = r_a + r_b whatever the poses; the contact point is r_a along n.
  const Ellipsoid a{{0.7, 0.7, 0.7}, {1, -2, 0.5}, {0.8, 0.6, 0, 0}};
  const Ellipsoid far{{0.4, 0.4, 0.4}, {3, 1, -1}, {0, 0, 1, 0}};
  const Ellipsoid near{{0.4, 0.4, 0.4}, {1.5, -1.8, 0.9}, {1, 0, 0, 0}};
  json queries = json::array();
  for (const char* method : {"newton_bisection", "fixed_point", "steffensen"}) {
    queries.push_back(closest_query(std::string("far_") + method, a, far, method));
    queries.push_back(closest_query(std::string("near_") + method, a, near, method));
  }
  const json results = run_queries(queries);
  ASSERT_EQ(results.size(), 6u);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const json& r = results[i];
    const Ellipsoid& b = i % 2 == 0 ? far : near;
    const V3 delta = sub3(b.centre, a.centre);
    const V3 n = scale3(delta, 1 / norm3(delta));
    EXPECT_NEAR(r.at("distance").get<double>(), 1.1, 1e-9) << r.dump();
    EXPECT_EQ(r.at("overlap").get<bool>(), norm3(delta) < 1.1) << r.dump();
    const V3 x = v3(r.at("contact_point"));
    const V3 normal = v3(r.at("normal"));
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(x[k], a.centre[k] + 0.7 * n[k], 1e-8) << r.dump();
      EXPECT_NEAR(normal[k], n[k], 1e-8) << r.dump();
    }
    EXPECT_GE(r.at("iterations").get<int>(), 0);
  }
  EXPECT_TRUE(results[1].at("overlap").get<bool>());
  EXPECT_FALSE(results[0].at("overlap").get<bool>());
}

TEST_F(CliQueryTest, ClosestApproachOfAlignedEllipsoidsTouchesAtTheTips) {
  // Both symmetric about the x axis and strictly convex: the single contact is on the axis, so
  // d = (a's x radius) + (b's extent along world x). b is turned 90° about z: its y radius
  // lies along world x.
  const double s = std::sqrt(0.5);
  const Ellipsoid a{{1.5, 0.5, 0.8}, {0, 0, 0}, {1, 0, 0, 0}};
  const Ellipsoid b{{0.3, 0.9, 0.6}, {4, 0, 0}, {s, 0, 0, s}};
  const json results = run_queries(json::array({closest_query("ab", a, b),
                                                 closest_query("ba", b, a)}));
  ASSERT_EQ(results.size(), 2u);
  for (const json& r : results) EXPECT_NEAR(r.at("distance").get<double>(), 2.4, 1e-9);
  EXPECT_FALSE(results[0].at("overlap").get<bool>());
  const V3 x = v3(results[0].at("contact_point"));
  EXPECT_NEAR(x[0], 1.5, 1e-9);
  EXPECT_NEAR(x[1], 0, 1e-9);
  EXPECT_NEAR(x[2], 0, 1e-9);
  // From b towards a the contact is on b's tip facing a, and the normal reverses.
  const V3 xb = v3(results[1].at("contact_point"));
  EXPECT_NEAR(xb[0], 4 - 0.9, 1e-9);
  EXPECT_NEAR(v3(results[0].at("normal"))[0], 1, 1e-9);
  EXPECT_NEAR(v3(results[1].at("normal"))[0], -1, 1e-9);
}

TEST_F(CliQueryTest, ClosestApproachMatchesSupportFunctionReferenceAndSwapSymmetry) {
  std::mt19937_64 rng(20240611);
  std::uniform_real_distribution<double> radius(0.3, 1.2);  // aspect ratio <= 4
  std::uniform_real_distribution<double> coord(-2, 2);
  std::vector<Ellipsoid> as;
  std::vector<Ellipsoid> bs;
  json queries = json::array();
  constexpr int kPairs = 12;
  for (int i = 0; i < kPairs; ++i) {
    Ellipsoid a{{radius(rng), radius(rng), radius(rng)}, {coord(rng), coord(rng), coord(rng)},
                random_quaternion(rng)};
    Ellipsoid b{{radius(rng), radius(rng), radius(rng)}, {coord(rng), coord(rng), coord(rng)},
                random_quaternion(rng)};
    as.push_back(a);
    bs.push_back(b);
    for (const char* method : {"newton_bisection", "fixed_point", "steffensen"}) {
      queries.push_back(closest_query("ab_" + std::to_string(i) + "_" + method, a, b, method));
    }
    queries.push_back(closest_query("ba_" + std::to_string(i), b, a));
  }
  const json results = run_queries(queries);
  ASSERT_EQ(results.size(), 4u * kPairs);
  int overlaps = 0;
  for (int i = 0; i < kPairs; ++i) {
    const Ellipsoid& a = as[i];
    const Ellipsoid& b = bs[i];
    const V3 delta = sub3(b.centre, a.centre);
    const V3 n = scale3(delta, 1 / norm3(delta));
    V3 normal_ref;
    const double d_ref = reference_distance(a, b, n, &normal_ref);
    overlaps += norm3(delta) < d_ref;
    for (int k = 0; k < 3; ++k) {
      const json& r = results[4 * i + k];
      SCOPED_TRACE(r.dump());
      EXPECT_TRUE(r.at("converged").get<bool>());
      EXPECT_NEAR(r.at("distance").get<double>(), d_ref, 1e-8 * d_ref);
      EXPECT_EQ(r.at("overlap").get<bool>(), norm3(delta) < d_ref);
      const V3 normal = v3(r.at("normal"));
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(normal[c], normal_ref[c], 1e-5);
      // The contact point is on a's surface, and on b's surface once b is moved to pa + d·n.
      const V3 x = v3(r.at("contact_point"));
      const std::array<double, 4> qa = {a.q[0], -a.q[1], -a.q[2], -a.q[3]};
      const V3 xa = rotate_by(qa, sub3(x, a.centre));
      EXPECT_NEAR(norm3({xa[0] / a.radii[0], xa[1] / a.radii[1], xa[2] / a.radii[2]}), 1, 1e-9);
      const std::array<double, 4> qb = {b.q[0], -b.q[1], -b.q[2], -b.q[3]};
      const V3 moved_b = add3(a.centre, scale3(n, d_ref));
      const V3 xb = rotate_by(qb, sub3(x, moved_b));
      EXPECT_NEAR(norm3({xb[0] / b.radii[0], xb[1] / b.radii[1], xb[2] / b.radii[2]}), 1, 1e-6);
    }
    // Swapped: the same distance, the normal reversed (b's contact point is the other end).
    const json& swapped = results[4 * i + 3];
    EXPECT_NEAR(swapped.at("distance").get<double>(), d_ref, 1e-8 * d_ref);
    const V3 normal_ba = v3(swapped.at("normal"));
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(normal_ba[c], -normal_ref[c], 1e-5);
  }
  // The random set covers both outcomes.
  EXPECT_GT(overlaps, 0);
  EXPECT_LT(overlaps, kPairs);
}

}  // namespace
}  // namespace impetus::test
