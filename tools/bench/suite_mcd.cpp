// impetus-bench mcd: paper 2's experiments (Lee 2017, §III–IV, §VI).
//  - capsule: fixed-seed random pairs of moving capsules (radius 0.05–0.2 m, half length
//    0.2–0.6 m, speeds up to ~1.7 m/s, spins up to ~5 rad/s, over 1 s), every method at the one
//    tolerance ε = 1e-4 m. The truth for miss_fraction is dense sampling of eq. 3.1 (10⁵ samples,
//    2·10⁴ with --quick) refined by golden section around each candidate local minimum; a
//    query "misses" when its value is off the truth by more than ε.
//  - mesh: a torus mesh (1280 triangles) and a box in separating motion (the box flies through
//    the torus hole while both spin); adaptive subdivision against uniform sampling at the SAME
//    certified error ε = 1e-3 m (the sample count from eq. 6.3). A box rather than a second mesh
//    because mesh–mesh signed_distance costs tens of ms per call at this size.
// Times are medians over repeated passes of the whole query set, per query.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "collision/continuous/continuous_distance.h"
#include "collision/shape/triangle_mesh.h"
#include "tools/bench/bench.h"

namespace impetus::bench {
namespace {

struct Query {
  Shape a, b;
  RigidMotion ma, mb;
  double t0 = 0, t1 = 1;
};

RigidMotion motion(const Vec3& x, const Quat& q, const Vec3& v, const Vec3& w) {
  RigidMotion m;
  m.pose0.position = x;
  m.pose0.orientation = q;
  m.linear_velocity = v;
  m.angular_velocity = w;
  return m;
}

std::vector<Query> capsule_queries(int count) {
  std::mt19937 rng(2017);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto vec = [&](double s) -> Vec3 { return Vec3(u(rng), u(rng), u(rng)) * s; };
  auto quat = [&]() { return Quat(Eigen::AngleAxisd(3.1 * u(rng), vec(1).normalized())); };
  std::vector<Query> list;
  for (int i = 0; i < count; ++i) {
    Query q;
    q.a = Shape::capsule(0.05 + 0.15 * std::abs(u(rng)), 0.2 + 0.4 * std::abs(u(rng)));
    q.b = Shape::capsule(0.05 + 0.15 * std::abs(u(rng)), 0.2 + 0.4 * std::abs(u(rng)));
    q.ma = motion(vec(0.8), quat(), vec(1.0), vec(3.0));
    q.mb = motion(vec(0.8), quat(), vec(1.0), vec(3.0));
    list.push_back(q);
  }
  return list;
}

// Golden-section minimum of a unimodal function on [lo, hi] (for the reference).
double local_min(const std::function<double(double)>& f, double lo, double hi) {
  const double r = 0.5 * (std::sqrt(5.0) - 1.0);
  double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo);
  double f1 = f(x1), f2 = f(x2);
  for (int i = 0; i < 60; ++i) {
    if (f1 <= f2) {
      hi = x2, x2 = x1, f2 = f1, x1 = hi - r * (hi - lo), f1 = f(x1);
    } else {
      lo = x1, x1 = x2, f1 = f2, x2 = lo + r * (hi - lo), f2 = f(x2);
    }
  }
  return std::min({f1, f2, f(lo), f(hi)});
}

double capsule_truth(const Query& q, int samples) {
  auto delta = [&](double t) {
    return capsule_signed_distance(q.a, q.ma.at(t), q.b, q.mb.at(t)).distance;
  };
  const double h = (q.t1 - q.t0) / samples;
  std::vector<double> d(samples + 1);
  for (int i = 0; i <= samples; ++i) d[i] = delta(q.t0 + h * i);
  const double sampled = *std::min_element(d.begin(), d.end());
  const double slack = mcd_motion_bound(q.a, q.ma, q.b, q.mb) * h;
  double truth = sampled;
  for (int i = 0; i <= samples; ++i) {
    if (d[i] > sampled + slack) continue;
    if ((i > 0 && d[i - 1] < d[i]) || (i < samples && d[i + 1] < d[i])) continue;
    truth = std::min(truth, local_min(delta, q.t0 + h * std::max(0, i - 1),
                                      q.t0 + h * std::min(samples, i + 1)));
  }
  return truth;
}

using MethodFn = McdResult (*)(const Shape&, const RigidMotion&, const Shape&, const RigidMotion&,
                               double, double, const McdOptions&);

struct Measured {
  double us_per_query = 0;
  double evaluations_mean = 0;
  double miss_fraction = 0;
  double uncertified_fraction = 0;
};

Measured measure(const std::vector<Query>& queries, const std::vector<double>* truth, MethodFn fn,
                 const McdOptions& options, int repeats, bool certified_method) {
  Measured m;
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    long long evaluations = 0;
    int misses = 0, uncertified = 0;
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const Query& q = queries[i];
      const McdResult res = fn(q.a, q.ma, q.b, q.mb, q.t0, q.t1, options);
      evaluations += res.evaluations;
      if (truth != nullptr && std::abs(res.mcd - (*truth)[i]) > options.tolerance) ++misses;
      if (certified_method && !res.certified) ++uncertified;
    }
    const auto stop = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::micro>(stop - start).count() /
                    static_cast<double>(queries.size()));
    m.evaluations_mean = static_cast<double>(evaluations) / static_cast<double>(queries.size());
    m.miss_fraction = static_cast<double>(misses) / static_cast<double>(queries.size());
    m.uncertified_fraction = static_cast<double>(uncertified) / static_cast<double>(queries.size());
  }
  m.us_per_query = median(times);
  return m;
}

// Torus about z: major radius R, minor r, n_u × n_v quads split in two.
std::shared_ptr<TriangleMesh> torus_mesh(double major, double minor, int nu, int nv) {
  auto mesh = std::make_shared<TriangleMesh>();
  for (int i = 0; i < nu; ++i) {
    const double u = 2 * kPi * i / nu;
    for (int j = 0; j < nv; ++j) {
      const double v = 2 * kPi * j / nv;
      const double rr = major + minor * std::cos(v);
      mesh->vertices.emplace_back(rr * std::cos(u), rr * std::sin(u), minor * std::sin(v));
    }
  }
  auto id = [&](int i, int j) { return ((i + nu) % nu) * nv + (j + nv) % nv; };
  for (int i = 0; i < nu; ++i) {
    for (int j = 0; j < nv; ++j) {
      mesh->triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      mesh->triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  }
  mesh->build_bvh();
  return mesh;
}

std::vector<Query> mesh_queries(int count, int* triangles) {
  std::mt19937 rng(4242);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const std::shared_ptr<TriangleMesh> torus = torus_mesh(1.0, 0.3, 32, 20);  // 1280 triangles
  *triangles = static_cast<int>(torus->triangles.size());
  std::vector<Query> list;
  for (int i = 0; i < count; ++i) {
    Query q;
    q.a = Shape::triangle_mesh(torus);
    q.b = Shape::box(Vec3(0.2, 0.25, 0.3));
    // The box crosses the torus' hole (inner radius 0.7) off-centre while the torus turns about
    // its axis and the box tumbles: no contact, several near passes.
    q.ma = motion(Vec3::Zero(), Quat::Identity(), Vec3::Zero(), Vec3(0, 0, 1.5 + u(rng)));
    const Vec3 offset(0.15 * u(rng), 0.15 * u(rng), -1.2);
    q.mb = motion(offset, Quat(Eigen::AngleAxisd(u(rng), Vec3::UnitX())), Vec3(0.1 * u(rng), 0.1 * u(rng), 2.4),
                  Vec3(u(rng), u(rng), u(rng)) * 3.0);
    list.push_back(q);
  }
  return list;
}

}  // namespace

int run_suite_mcd(const BenchOptions& options, BenchReport& report) {
  int status = 0;
  // ---- capsules: all methods at one tolerance -------------------------------------------
  const std::vector<Query> capsules = capsule_queries(options.quick ? 20 : 200);
  std::vector<double> truth;
  for (const Query& q : capsules) truth.push_back(capsule_truth(q, options.quick ? 20000 : 100000));
  int penetrating = 0;
  for (double t : truth) penetrating += t < 0 ? 1 : 0;
  McdOptions o;
  o.tolerance = 1e-4;
  const int repeats = options.quick ? 1 : 5;
  McdOptions paper_order = o;
  paper_order.hybrid_switch = 64;  // range bisection first, as in §III.D
  struct Entry {
    const char* name;
    MethodFn fn;
    const McdOptions* options;
  };
  const Entry methods[] = {{"golden_section", &mcd_golden_section, &o},
                           {"conservative_advancement", &mcd_conservative_advancement, &o},
                           {"hybrid", &mcd_hybrid, &o},
                           {"hybrid_bisect_first", &mcd_hybrid, &paper_order},
                           {"adaptive_subdivision", &mcd_adaptive_subdivision, &o},
                           {"sampling", &mcd_sampling, &o}};
  for (const Entry& e : methods) {
    const std::string name = e.name;
    const bool certified = name != "golden_section";
    const Measured m =
        measure(capsules, &truth, e.fn, *e.options, name == "sampling" ? 1 : repeats, certified);
    const std::string key = "capsule." + name + ".";
    report.figures[key + "evaluations_mean"] = m.evaluations_mean;
    report.figures[key + "us_per_query"] = m.us_per_query;
    report.figures[key + "miss_fraction"] = m.miss_fraction;
    if (certified) {
      report.figures[key + "uncertified_fraction"] = m.uncertified_fraction;
      if (m.miss_fraction > 0 || m.uncertified_fraction > 0) status = 1;
    }
  }
  report.figures["capsule.queries"] = static_cast<double>(capsules.size());
  report.figures["capsule.penetrating_fraction"] =
      static_cast<double>(penetrating) / static_cast<double>(capsules.size());
  report.figures["capsule.tolerance"] = o.tolerance;

  // ---- meshes: adaptive subdivision vs sampling at equal certified error ------------------
  int triangles = 0;
  const std::vector<Query> meshes = mesh_queries(options.quick ? 1 : 6, &triangles);
  McdOptions mo;
  mo.tolerance = 1e-3;
  const Measured as = measure(meshes, nullptr, &mcd_adaptive_subdivision, mo, options.quick ? 1 : 3, true);
  const Measured sm = measure(meshes, nullptr, &mcd_sampling, mo, 1, true);
  report.figures["mesh.triangles"] = triangles;
  report.figures["mesh.tolerance"] = mo.tolerance;
  report.figures["mesh.adaptive_subdivision.us_per_query"] = as.us_per_query;
  report.figures["mesh.adaptive_subdivision.evaluations_mean"] = as.evaluations_mean;
  report.figures["mesh.sampling.us_per_query"] = sm.us_per_query;
  report.figures["mesh.sampling.evaluations_mean"] = sm.evaluations_mean;
  report.figures["mesh.speedup"] = sm.us_per_query / as.us_per_query;
  if (as.uncertified_fraction > 0 || sm.uncertified_fraction > 0) status = 1;
  double min_distance = std::numeric_limits<double>::infinity();
  for (const Query& q : meshes) {
    min_distance = std::min(min_distance, mcd_adaptive_subdivision(q.a, q.ma, q.b, q.mb, q.t0, q.t1, mo).lower_bound);
  }
  report.figures["mesh.min_distance"] = min_distance;
  report.notes.push_back("capsule: 1 s of motion per query, tolerance 1e-4 m; mesh: torus mesh (R 1, "
                         "r 0.3, 1280 triangles) vs box, tolerance 1e-3 m");
  return status;
}

}  // namespace impetus::bench
