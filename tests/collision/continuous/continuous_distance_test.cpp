// MCD (paper 2) against an independent reference: the exact signed distance sampled densely in
// time (>= 10⁵ samples), refined by golden section around every sampled local minimum that
// could hide the global one. The capsule distance reference minimises the point–segment
// distance along one core by golden section (independent of the closed form under test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "collision/continuous/continuous_distance.h"
#include "collision/shape/convex_hull.h"
#include "collision/distance/distance.h"
#include "collision/shape/triangle_mesh.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double point_segment_distance(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const double len2 = ab.squaredNorm();
  const double s = len2 > 0 ? std::clamp((p - a).dot(ab) / len2, 0.0, 1.0) : 0.0;
  return (p - (a + s * ab)).norm();
}

// Golden-section minimum of a unimodal function on [lo, hi].
double unimodal_min(const std::function<double(double)>& f, double lo, double hi, int iterations,
                    double* arg = nullptr) {
  const double r = 0.5 * (std::sqrt(5.0) - 1.0);
  double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo);
  double f1 = f(x1), f2 = f(x2);
  for (int i = 0; i < iterations; ++i) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - r * (hi - lo);
      f1 = f(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + r * (hi - lo);
      f2 = f(x2);
    }
  }
  double best = std::min({f1, f2, f(lo), f(hi)});
  if (arg != nullptr) *arg = f1 <= f2 ? x1 : x2;
  return best;
}

// Reference capsule signed distance by enumeration: the closest pair of two segments is either
// an end point against the other segment (4 candidates) or the interior critical point of the two
// lines when both of its parameters fall inside the segments.
double reference_capsule_distance(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb) {
  const Vec3 ha = pa.rotate(Vec3(0, 0, a.type == ShapeType::Capsule ? a.half_length : 0.0));
  const Vec3 hb = pb.rotate(Vec3(0, 0, b.type == ShapeType::Capsule ? b.half_length : 0.0));
  const Vec3 a0 = pa.position - ha, a1 = pa.position + ha;
  const Vec3 b0 = pb.position - hb, b1 = pb.position + hb;
  double core = std::min({point_segment_distance(a0, b0, b1), point_segment_distance(a1, b0, b1),
                          point_segment_distance(b0, a0, a1), point_segment_distance(b1, a0, a1)});
  const Vec3 u = a1 - a0, v = b1 - b0, w = a0 - b0;
  const double uu = u.dot(u), uv = u.dot(v), vv = v.dot(v), uw = u.dot(w), vw = v.dot(w);
  const double det = uu * vv - uv * uv;
  if (det > 1e-12 * uu * vv) {
    const double s = (uv * vw - vv * uw) / det, t = (uu * vw - uv * uw) / det;
    if (s > 0 && s < 1 && t > 0 && t < 1) core = std::min(core, (w + s * u - t * v).norm());
  }
  return core - a.radius - b.radius;
}

RigidMotion make_motion(const Vec3& x0, const Quat& q0, const Vec3& v, const Vec3& w) {
  RigidMotion m;
  m.pose0.position = x0;
  m.pose0.orientation = q0;
  m.linear_velocity = v;
  m.angular_velocity = w;
  return m;
}

struct Truth {
  double value = 0;
  double time = 0;
};

// Dense sampling plus golden-section refinement around each sampled local minimum within
// lipschitz·h of the sampled minimum (any of them may hold the true minimum).
Truth dense_truth(const std::function<double(double)>& delta, double t0, double t1, int samples,
                  double lipschitz) {
  std::vector<double> d(samples + 1);
  const double h = (t1 - t0) / samples;
  for (int i = 0; i <= samples; ++i) d[i] = delta(t0 + h * i);
  const int best_index = static_cast<int>(std::min_element(d.begin(), d.end()) - d.begin());
  Truth truth{d[best_index], t0 + h * best_index};
  for (int i = 0; i <= samples; ++i) {
    if (d[i] > d[best_index] + lipschitz * h) continue;
    if ((i > 0 && d[i - 1] < d[i]) || (i < samples && d[i + 1] < d[i])) continue;
    const double lo = t0 + h * std::max(0, i - 1), hi = t0 + h * std::min(samples, i + 1);
    double arg = 0;
    const double m = unimodal_min(delta, lo, hi, 60, &arg);
    if (m < truth.value) truth = {m, arg};
  }
  return truth;
}

struct CapsuleCase {
  Shape a, b;
  RigidMotion ma, mb;
  double t0 = 0, t1 = 1;
};

Truth capsule_truth(const CapsuleCase& c, int samples = 100000) {
  return dense_truth(
      [&](double t) { return reference_capsule_distance(c.a, c.ma.at(t), c.b, c.mb.at(t)); }, c.t0,
      c.t1, samples, mcd_motion_bound(c.a, c.ma, c.b, c.mb));
}

// The certified bracket contains the truth (up to the reference's own accuracy) and is no wider
// than the tolerance; the reported value is attained at the reported time.
void expect_certified(const McdResult& r, const Truth& truth, double eps, const char* what) {
  EXPECT_TRUE(r.certified) << what;
  EXPECT_LE(r.lower_bound, truth.value + 1e-10) << what;
  EXPECT_GE(r.upper_bound, truth.value - 1e-10) << what;
  EXPECT_LE(r.upper_bound - r.lower_bound, eps * (1 + 1e-12)) << what;
  EXPECT_EQ(r.mcd, r.upper_bound) << what;
  EXPECT_GT(r.evaluations, 0) << what;
}

void expect_capsule_value_at_time(const CapsuleCase& c, const McdResult& r) {
  EXPECT_NEAR(reference_capsule_distance(c.a, c.ma.at(r.time), c.b, c.mb.at(r.time)), r.mcd, 1e-9);
}

TEST(CapsuleSignedDistance, MatchesReferenceOnRandomPoses) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  // Radius drawn before length (one draw per statement: see tests/random_draws.h).
  auto draw_capsule = [&](bool zero_length) {
    const double radius = 0.1 + 0.2 * std::abs(u(rng));
    return Shape::capsule(radius, zero_length ? 0.0 : std::abs(u(rng)));
  };
  for (int i = 0; i < 2000; ++i) {
    const Shape a = i % 7 == 0 ? Shape::sphere(0.3) : draw_capsule(false);
    const Shape b = draw_capsule(i % 5 == 0);
    Pose pa, pb;
    pa.position = test::draw_vec3(u, rng);
    pb.position = test::draw_vec3(u, rng);
    pa.orientation = test::draw_angle_axis(u, rng, 3);
    pb.orientation = i % 11 == 0 ? pa.orientation  // parallel cores
                                 : test::draw_angle_axis(u, rng, 3);
    const CapsuleDistance d = capsule_signed_distance(a, pa, b, pb);
    EXPECT_NEAR(d.distance, reference_capsule_distance(a, pa, b, pb), 1e-12) << i;
    if (d.distance + a.radius + b.radius > 1e-9) {
      EXPECT_NEAR((d.core_b - d.core_a).dot(d.normal), d.distance + a.radius + b.radius, 1e-12);
    }
  }
}

// A capsule spinning about x next to a sphere it slowly approaches: each half turn brings one
// end past the sphere, a local minimum, and the last one is the lowest.
CapsuleCase several_minima_case() {
  CapsuleCase c;
  c.a = Shape::capsule(0.1, 1.0);
  c.b = Shape::sphere(0.2);
  c.ma = make_motion(Vec3::Zero(), Quat::Identity(), Vec3(0, 0, 0.15), Vec3(9.0, 0, 0));
  c.mb = make_motion(Vec3(0, 0.2, 1.6), Quat::Identity(), Vec3::Zero(), Vec3::Zero());
  return c;
}

TEST(McdCapsules, SeveralLocalMinima) {
  const CapsuleCase c = several_minima_case();
  const Truth truth = capsule_truth(c);
  const double eps = 1e-6;
  McdOptions o;
  o.tolerance = eps;
  const McdResult ca = mcd_conservative_advancement(c.a, c.ma, c.b, c.mb, c.t0, c.t1, o);
  expect_certified(ca, truth, eps, "conservative advancement");
  expect_capsule_value_at_time(c, ca);
  const McdResult hy = mcd_hybrid(c.a, c.ma, c.b, c.mb, c.t0, c.t1, o);
  expect_certified(hy, truth, eps, "hybrid");
  expect_capsule_value_at_time(c, hy);
  const McdResult as = mcd_adaptive_subdivision(c.a, c.ma, c.b, c.mb, c.t0, c.t1, o);
  expect_certified(as, truth, eps, "adaptive subdivision");
  // The truth is a genuine interior minimum that is not the first one.
  EXPECT_GT(truth.time, 0.3);
  EXPECT_LT(truth.time, 0.999);
  const McdResult gs = mcd_golden_section(c.a, c.ma, c.b, c.mb, c.t0, c.t1, o);
  EXPECT_FALSE(gs.certified);
  EXPECT_GE(gs.upper_bound, truth.value - 1e-10);
  EXPECT_LE(gs.lower_bound, truth.value);
  std::printf("[ several minima ] truth %.9f at %.6f; GSS %.9f (%s); evaluations CA %d, hybrid %d, "
              "AS %d, GSS %d\n",
              truth.value, truth.time, gs.mcd, gs.mcd - truth.value > eps ? "missed" : "found",
              ca.evaluations, hy.evaluations, as.evaluations, gs.evaluations);
}

TEST(McdCapsules, PassingThroughEachOtherGivesNegativeMinimum) {
  CapsuleCase c;
  c.a = Shape::capsule(0.25, 0.8);
  c.b = Shape::capsule(0.15, 0.5);
  // a along z crosses b (along x after a quarter turn about y) with a 0.1 offset in y.
  c.ma = make_motion(Vec3(-2, 0.1, 0), Quat::Identity(), Vec3(4, 0, 0), Vec3(0, 0, 0.5));
  c.mb = make_motion(Vec3::Zero(), Quat(Eigen::AngleAxisd(kPi / 2, Vec3::UnitY())), Vec3::Zero(),
                     Vec3(0.3, 0, 0));
  const Truth truth = capsule_truth(c);
  EXPECT_LT(truth.value, -0.2);
  const double eps = 1e-6;
  McdOptions o;
  o.tolerance = eps;
  expect_certified(mcd_conservative_advancement(c.a, c.ma, c.b, c.mb, 0, 1, o), truth, eps, "CA");
  expect_certified(mcd_hybrid(c.a, c.ma, c.b, c.mb, 0, 1, o), truth, eps, "hybrid");
  expect_certified(mcd_adaptive_subdivision(c.a, c.ma, c.b, c.mb, 0, 1, o), truth, eps, "AS");
  // Cores that actually cross reach the global bound −(rA + rB).
  CapsuleCase x = c;
  x.ma.pose0.position.y() = 0;
  x.mb.angular_velocity = Vec3::Zero();
  const McdResult r = mcd_hybrid(x.a, x.ma, x.b, x.mb, 0, 1, o);
  EXPECT_TRUE(r.certified);
  EXPECT_NEAR(r.lower_bound, -0.4, 1e-12);
  EXPECT_LE(r.upper_bound, -0.4 + eps);
}

TEST(McdCapsules, GrazingTouchIsBracketed) {
  // A sphere sliding past a capsule at exactly rA + rB from its core: minimum exactly 0.
  CapsuleCase c;
  c.a = Shape::sphere(0.5);
  c.b = Shape::capsule(0.5, 1.0);
  c.ma = make_motion(Vec3(-1.5, 1.0, 0.3), Quat::Identity(), Vec3(2.0, 0, 0), Vec3(0, 0, 7));
  c.mb = make_motion(Vec3::Zero(), Quat::Identity(), Vec3::Zero(), Vec3::Zero());
  const double eps = 1e-7;
  McdOptions o;
  o.tolerance = eps;
  const Truth truth = capsule_truth(c);
  EXPECT_NEAR(truth.value, 0.0, 1e-12);
  EXPECT_NEAR(truth.time, 0.75, 1e-5);
  for (McdMethod m : {McdMethod::ConservativeAdvancement, McdMethod::Hybrid,
                      McdMethod::AdaptiveSubdivision, McdMethod::Sampling}) {
    const std::optional<McdResult> r = continuous_distance(c.a, c.ma, c.b, c.mb, 0, 1, m, o);
    ASSERT_TRUE(r.has_value());
    if (m == McdMethod::Sampling) {
      EXPECT_LE(r->lower_bound, truth.value);
      EXPECT_GE(r->upper_bound, truth.value);
      continue;
    }
    expect_certified(*r, truth, eps, mcd_method_name(m));
  }
}

TEST(McdCapsules, RandomCasesAlwaysBracketTheTruth) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double eps = 1e-5;
  int separated = 0, penetrating = 0, gss_misses = 0;
  long long evals_ca = 0, evals_hy = 0, evals_as = 0, evals_gs = 0;
  const int cases = 40;
  // One draw per statement (see tests/random_draws.h): radius before length; position,
  // orientation, velocity, spin in that order.
  auto draw_capsule = [&]() {
    const double radius = 0.05 + 0.3 * std::abs(u(rng));
    return Shape::capsule(radius, 0.2 + 0.8 * std::abs(u(rng)));
  };
  auto draw_motion = [&]() {
    const Vec3 position = test::draw_vec3(u, rng) * 1.5;
    const Quat orientation = test::draw_angle_axis(u, rng, 3);
    const Vec3 velocity = test::draw_vec3(u, rng) * 1.5;
    return make_motion(position, orientation, velocity, test::draw_vec3(u, rng) * 5.0);
  };
  for (int i = 0; i < cases; ++i) {
    CapsuleCase c;
    c.a = draw_capsule();
    c.b = i % 6 == 0 ? Shape::sphere(0.1 + 0.3 * std::abs(u(rng))) : draw_capsule();
    c.ma = draw_motion();
    c.mb = draw_motion();
    c.t0 = i % 4 == 0 ? 0.5 : 0.0;  // absolute times: the poses are given at t = 0
    c.t1 = c.t0 + 1.0;
    const Truth truth = capsule_truth(c);
    (truth.value > 0 ? separated : penetrating)++;
    McdOptions o;
    o.tolerance = eps;
    const McdResult ca = mcd_conservative_advancement(c.a, c.ma, c.b, c.mb, c.t0, c.t1, o);
    expect_certified(ca, truth, eps, "CA");
    const McdResult hy = mcd_hybrid(c.a, c.ma, c.b, c.mb, c.t0, c.t1, o);
    expect_certified(hy, truth, eps, "hybrid");
    McdOptions paper_order = o;
    paper_order.hybrid_switch = 64;
    expect_certified(mcd_hybrid(c.a, c.ma, c.b, c.mb, c.t0, c.t1, paper_order), truth, eps,
                     "hybrid, bisection first");
    const McdResult as = mcd_adaptive_subdivision(c.a, c.ma, c.b, c.mb, c.t0, c.t1, o);
    expect_certified(as, truth, eps, "AS");
    McdOptions coarse;
    coarse.tolerance = 1e-3;
    const McdResult sm = mcd_sampling(c.a, c.ma, c.b, c.mb, c.t0, c.t1, coarse);
    expect_certified(sm, truth, coarse.tolerance, "sampling");
    const McdResult gs = mcd_golden_section(c.a, c.ma, c.b, c.mb, c.t0, c.t1, o);
    EXPECT_GE(gs.upper_bound, truth.value - 1e-10);
    EXPECT_LE(gs.lower_bound, truth.value);
    if (gs.mcd - truth.value > eps) ++gss_misses;
    evals_ca += ca.evaluations;
    evals_hy += hy.evaluations;
    evals_as += as.evaluations;
    evals_gs += gs.evaluations;
    if (HasFailure()) {
      ADD_FAILURE() << "case " << i << " truth " << truth.value << " at " << truth.time;
      break;
    }
  }
  EXPECT_GE(separated, 5);
  EXPECT_GE(penetrating, 5);
  std::printf("[ random capsules ] %d separated / %d penetrating minima; golden section missed "
              "%d of %d; mean evaluations CA %.0f, hybrid %.0f, AS %.0f, GSS %.0f\n",
              separated, penetrating, gss_misses, cases, double(evals_ca) / cases,
              double(evals_hy) / cases, double(evals_as) / cases, double(evals_gs) / cases);
}

// Issue 11.4: long capsules (half-lengths 1.4–2 m) spinning at 14–20 rad/s over [0, 1] have many
// local minima of δ, several of them interpenetrating and close in value. The default method
// (hybrid, golden section plus advancement) must certify every case to its tolerance within
// 500,000 evaluations and bracket the true global minimum. The reference is dense sampling
// (2·10⁵ samples) refined around every sampled local minimum that could hold the global one.
TEST(McdCapsules, FastSpinningLongCapsulesAreCertified) {
  std::mt19937 rng(20261126);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto unit = [&]() { return test::draw_vec3(u, rng).normalized(); };
  // One draw per statement (see tests/random_draws.h): radius before length; orientation,
  // velocity, spin axis in that order.
  auto draw_capsule = [&]() {
    const double radius = 0.05 + 0.1 * std::abs(u(rng));
    return Shape::capsule(radius, 1.4 + 0.6 * std::abs(u(rng)));
  };
  int penetrating = 0, several_minima = 0;
  long long max_evaluations[2] = {0, 0};
  const int cases = 24;
  for (int i = 0; i < cases; ++i) {
    CapsuleCase c;
    c.a = draw_capsule();
    c.b = draw_capsule();
    const double spin_a = 14 + 6 * std::abs(u(rng)), spin_b = 14 + 6 * std::abs(u(rng));
    const Quat qa = test::draw_angle_axis(u, rng, 3);
    const Vec3 va = 0.3 * test::draw_vec3(u, rng);
    c.ma = make_motion(Vec3::Zero(), qa, va, spin_a * unit());
    // Centres 0.3–1.5 m apart: the spinning cores sweep through each other's reach many times.
    const double reach = 0.3 + 1.2 * std::abs(u(rng));
    const Vec3 xb = reach * unit();
    const Quat qb = test::draw_angle_axis(u, rng, 3);
    const Vec3 vb = 0.3 * test::draw_vec3(u, rng);
    c.mb = make_motion(xb, qb, vb, spin_b * unit());
    const Truth truth = capsule_truth(c, 200000);
    if (truth.value < 0) ++penetrating;
    // Count the sampled local minima (a coarse look at how multimodal the case is).
    int minima = 0;
    double prev2 = kInfinity, prev1 = kInfinity;
    for (int k = 0; k <= 2000; ++k) {
      const double t = c.t0 + (c.t1 - c.t0) * k / 2000.0;
      const double d = reference_capsule_distance(c.a, c.ma.at(t), c.b, c.mb.at(t));
      if (prev1 < prev2 && prev1 < d) ++minima;
      prev2 = prev1;
      prev1 = d;
    }
    if (minima >= 3) ++several_minima;
    ASSERT_EQ(default_mcd_method(c.a, c.b), McdMethod::Hybrid);
    for (int k = 0; k < 2; ++k) {
      McdOptions o;
      o.tolerance = k == 0 ? 1e-6 : 1e-8;
      const std::optional<McdResult> r =
          continuous_distance(c.a, c.ma, c.b, c.mb, c.t0, c.t1, McdMethod::Hybrid, o);
      ASSERT_TRUE(r.has_value());
      expect_certified(*r, truth, o.tolerance, k == 0 ? "hybrid 1e-6" : "hybrid 1e-8");
      EXPECT_LE(r->evaluations, 500000) << "case " << i;
      expect_capsule_value_at_time(c, *r);
      max_evaluations[k] = std::max<long long>(max_evaluations[k], r->evaluations);
      // Conservative advancement shares the advancement step: it must certify too.
      const McdResult ca = mcd_conservative_advancement(c.a, c.ma, c.b, c.mb, c.t0, c.t1, o);
      expect_certified(ca, truth, o.tolerance, "CA");
    }
    if (HasFailure()) {
      ADD_FAILURE() << "case " << i << " truth " << truth.value << " at " << truth.time;
      break;
    }
  }
  EXPECT_GE(penetrating, 4);
  EXPECT_GE(several_minima, cases / 2);
  std::printf("[ fast spinners ] %d of %d penetrating, %d with >= 3 local minima; max evaluations "
              "hybrid %lld (1e-6), %lld (1e-8)\n",
              penetrating, cases, several_minima, max_evaluations[0], max_evaluations[1]);
}

std::shared_ptr<const TriangleMesh> icosphere(double radius, int subdivisions) {
  auto mesh = std::make_shared<TriangleMesh>();
  const double p = (1 + std::sqrt(5.0)) / 2;
  mesh->vertices = {{-1, p, 0}, {1, p, 0}, {-1, -p, 0}, {1, -p, 0}, {0, -1, p}, {0, 1, p},
                    {0, -1, -p}, {0, 1, -p}, {p, 0, -1}, {p, 0, 1}, {-p, 0, -1}, {-p, 0, 1}};
  mesh->triangles = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9},
                     {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2},
                     {3, 2, 6}, {3, 6, 8}, {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10},
                     {8, 6, 7}, {9, 8, 1}};
  for (int s = 0; s < subdivisions; ++s) {
    std::vector<std::array<int, 3>> next;
    std::vector<std::pair<std::pair<int, int>, int>> cache;
    auto midpoint = [&](int i, int j) {
      const std::pair<int, int> key{std::min(i, j), std::max(i, j)};
      for (const auto& [k, v] : cache) {
        if (k == key) return v;
      }
      mesh->vertices.push_back(0.5 * (mesh->vertices[i] + mesh->vertices[j]));
      cache.push_back({key, static_cast<int>(mesh->vertices.size()) - 1});
      return cache.back().second;
    };
    for (const auto& t : mesh->triangles) {
      const int a = midpoint(t[0], t[1]), b = midpoint(t[1], t[2]), c = midpoint(t[2], t[0]);
      next.push_back({t[0], a, c});
      next.push_back({t[1], b, a});
      next.push_back({t[2], c, b});
      next.push_back({a, b, c});
    }
    mesh->triangles = next;
  }
  for (Vec3& v : mesh->vertices) v = v.normalized() * radius;
  mesh->build_bvh();
  return mesh;
}

void check_general_pair(const Shape& a, const RigidMotion& ma, const Shape& b,
                        const RigidMotion& mb, double eps, int samples, const char* what) {
  auto delta = [&](double t) {
    std::optional<DistanceResult> d = signed_distance(a, ma.at(t), b, mb.at(t));
    EXPECT_TRUE(d.has_value());
    return d ? d->distance : 0.0;
  };
  const Truth truth = dense_truth(delta, 0.0, 1.0, samples, mcd_motion_bound(a, ma, b, mb));
  McdOptions o;
  o.tolerance = eps;
  const McdResult as = mcd_adaptive_subdivision(a, ma, b, mb, 0.0, 1.0, o);
  expect_certified(as, truth, eps, what);
  EXPECT_NEAR(delta(as.time), as.mcd, 1e-12) << what;
  // Sampling at the same certified error (eq. 6.3) also brackets the truth.
  const McdResult sm = mcd_sampling(a, ma, b, mb, 0.0, 1.0, o);
  expect_certified(sm, truth, eps, what);
  std::printf("[ %s ] truth %.9f; evaluations AS %d vs sampling %d\n", what, truth.value,
              as.evaluations, sm.evaluations);
}

TEST(McdAdaptiveSubdivision, ConvexPairsMatchDenseSampling) {
  std::string error;
  std::vector<Vec3> points;
  std::mt19937 rng(17);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int i = 0; i < 40; ++i) {
    points.push_back(test::draw_vec3(g, rng).cwiseProduct(Vec3(1, 1, 0.5)).normalized() * 0.6);
  }
  const std::optional<ConvexHull> hull = build_convex_hull(points, &error);
  ASSERT_TRUE(hull.has_value()) << error;
  const Shape convex = Shape::convex(std::make_shared<ConvexHull>(*hull));
  const Shape box = Shape::box(Vec3(0.4, 0.2, 0.6));
  // Separated all along, several minima from the spin.
  check_general_pair(box, make_motion(Vec3(-1.2, 0, 0), Quat::Identity(), Vec3(0.3, 0, 0), Vec3(0, 0, 8)),
                     convex, make_motion(Vec3(0.8, 0.3, 0), Quat::Identity(), Vec3::Zero(), Vec3(2, 1, 0)),
                     1e-4, 100000, "box-convex separated");
  // Passing through: negative minimum (EPA penetration depth).
  check_general_pair(box, make_motion(Vec3(-2, 0.1, 0), Quat::Identity(), Vec3(4, 0, 0), Vec3(0, 3, 0)),
                     convex, make_motion(Vec3::Zero(), Quat::Identity(), Vec3::Zero(), Vec3(0, 0, 1)),
                     1e-4, 100000, "box-convex penetrating");
}

TEST(McdAdaptiveSubdivision, MeshPairMatchesDenseSampling) {
  // A spinning box sweeping past a spinning mesh ball (80 triangles) without touching it: the
  // surface distance is Lipschitz in the motion, as the certificate assumes. (A mesh's negative
  // values switch between crossing depth and inside gap, see distance_mesh.h, and need not be.)
  const Shape ball = Shape::triangle_mesh(icosphere(0.5, 1));
  const Shape box = Shape::box(Vec3(0.3, 0.3, 0.3));
  const RigidMotion mball = make_motion(Vec3(0, 0, 0), Quat::Identity(), Vec3::Zero(), Vec3(1, 2, 3));
  const RigidMotion mbox = make_motion(Vec3(-1.5, 0.85, 0.1), Quat::Identity(), Vec3(2.2, 0, 0), Vec3(0, 4, 0));
  double max_slope = 0, previous = 0;
  const double lipschitz = mcd_motion_bound(ball, mball, box, mbox);
  for (int i = 0; i <= 2000; ++i) {
    const double t = i / 2000.0;
    const double d = signed_distance(ball, mball.at(t), box, mbox.at(t))->distance;
    if (i > 0) max_slope = std::max(max_slope, std::abs(d - previous) * 2000.0);
    previous = d;
  }
  EXPECT_LE(max_slope, lipschitz);
  check_general_pair(ball, mball, box, mbox, 1e-3, 20000, "mesh-box");
}

TEST(ContinuousDistance, DispatchAndNames) {
  for (McdMethod m : {McdMethod::GoldenSection, McdMethod::ConservativeAdvancement, McdMethod::Hybrid,
                      McdMethod::AdaptiveSubdivision, McdMethod::Sampling}) {
    EXPECT_EQ(parse_mcd_method(mcd_method_name(m)), m);
  }
  EXPECT_FALSE(parse_mcd_method("bogus").has_value());
  const Shape box = Shape::box(Vec3::Ones());
  const Shape cap = Shape::capsule(0.1, 0.5);
  EXPECT_EQ(default_mcd_method(cap, Shape::sphere(1)), McdMethod::Hybrid);
  EXPECT_EQ(default_mcd_method(cap, box), McdMethod::AdaptiveSubdivision);
  RigidMotion m;
  std::string error;
  EXPECT_FALSE(continuous_distance(box, m, cap, m, 0, 1, McdMethod::Hybrid, {}, &error).has_value());
  EXPECT_NE(error.find("capsules"), std::string::npos);
  EXPECT_FALSE(continuous_distance(cap, m, cap, m, 1, 0, McdMethod::Hybrid, {}, &error).has_value());
  McdOptions bad;
  bad.tolerance = 0;
  EXPECT_FALSE(continuous_distance(cap, m, cap, m, 0, 1, McdMethod::Hybrid, bad, &error).has_value());
  // A static configuration: every method returns the one distance.
  RigidMotion far;
  far.pose0.position = Vec3(3, 0, 0);
  for (McdMethod method : {McdMethod::GoldenSection, McdMethod::ConservativeAdvancement,
                           McdMethod::Hybrid, McdMethod::AdaptiveSubdivision, McdMethod::Sampling}) {
    const std::optional<McdResult> r = continuous_distance(cap, m, cap, far, 0, 1, method);
    ASSERT_TRUE(r.has_value());
    EXPECT_NEAR(r->mcd, 2.8, 1e-12) << mcd_method_name(method);
  }
}

}  // namespace
}  // namespace impetus
