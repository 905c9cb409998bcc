// impetus-peer-fcl: the same random shape pairs through our signed_distance and through FCL
// (fcl::distance with signed distance for convex shapes; for meshes, whose FCL distance is
// unsigned, fcl::collide with contacts gives the penetration when they touch). Prints µs per
// query (median over pairs of the per-pair median over repeats), the ratio, and agreement: max
// |d_ours − d_fcl| over the pairs both call separated. Output as impetus-bench/1 (suite
// "peer_fcl") with --json, else a table.
#include <algorithm>
#include <cstddef>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collision/distance/distance.h"
#include "tools/bench/bench.h"
#include "tools/peers/fcl/fcl_geometry.h"
#include "tools/peers/fcl/peer_pairs.h"

namespace impetus::peers {
namespace {

using Clock = std::chrono::steady_clock;
using bench::median;

// Times `repeats` samples of `batch` back-to-back calls of `fn`; the median per call in µs
// (batches keep sub-µs queries above the clock's resolution).
template <typename F>
double time_us(int repeats, int batch, F fn) {
  std::vector<double> samples;
  samples.reserve(repeats);
  for (int r = 0; r < repeats; ++r) {
    const Clock::time_point start = Clock::now();
    for (int k = 0; k < batch; ++k) fn();
    samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                      batch);
  }
  return median(samples);
}

// Exact signed distance where it is one line: sphere–sphere and sphere–capsule (point–segment
// distance minus the radii); independent of both libraries.
std::optional<double> closed_form_distance(const ShapePair& pair) {
  if (pair.a.type != ShapeType::Sphere) return std::nullopt;
  const Vec3& c = pair.pose_a.position;
  if (pair.b.type == ShapeType::Sphere) {
    return (pair.pose_b.position - c).norm() - pair.a.radius - pair.b.radius;
  }
  if (pair.b.type != ShapeType::Capsule) return std::nullopt;
  const Vec3 axis = pair.pose_b.orientation * Vec3(0, 0, pair.b.half_length);
  const Vec3 p0 = pair.pose_b.position - axis;
  const Vec3 d = 2 * axis;
  const double u = std::clamp((c - p0).dot(d) / d.squaredNorm(), 0.0, 1.0);
  return (c - (p0 + u * d)).norm() - pair.a.radius - pair.b.radius;
}

// FCL's signed distance of a pair: for shape pairs one fcl::distance call with
// enable_signed_distance; for meshes (BVH models: unsigned distance) fcl::distance, then on
// contact fcl::collide with contacts, −(largest penetration depth).
double fcl_signed_distance(const fcl::CollisionObjectd& a, const fcl::CollisionObjectd& b,
                           bool meshes) {
  fcl::DistanceRequestd request(false, !meshes);
  fcl::DistanceResultd result;
  const double d = fcl::distance(&a, &b, request, result);
  if (!meshes || d > 0) return d;
  fcl::CollisionRequestd collide_request(1000, true);
  fcl::CollisionResultd collide_result;
  fcl::collide(&a, &b, collide_request, collide_result);
  double depth = 0;
  for (std::size_t i = 0; i < collide_result.numContacts(); ++i) {
    depth = std::max(depth, collide_result.getContact(i).penetration_depth);
  }
  return -depth;
}

struct CategoryFigures {
  double us_impetus = 0;
  double us_fcl = 0;
  // The same medians over the pairs impetus calls separated / overlapping (NaN if none).
  double us_impetus_separated = 0;
  double us_fcl_separated = 0;
  double us_impetus_overlapping = 0;
  double us_fcl_overlapping = 0;
  double max_diff_separated = 0;
  double max_diff_overlapping = 0;  // convex categories only (FCL signed distance)
  int separated = 0;
  int overlapping = 0;
  int sign_agree = 0;
  int failed = 0;  // pairs either side could not answer
  // Against the closed form (sphere pairs only; NaN otherwise).
  double max_err_impetus = std::nan("");
  double max_err_fcl = std::nan("");
};

CategoryFigures run_category(const PairCategory& category, int repeats) {
  CategoryFigures f;
  const int batch = category.name == "mesh_mesh" ? 1 : 16;
  std::vector<double> ours_us;
  std::vector<double> fcl_us;
  std::vector<double> ours_us_by_state[2];  // [0] separated, [1] overlapping (ours)
  std::vector<double> fcl_us_by_state[2];
  const bool meshes = category.name == "mesh_mesh";
  for (const ShapePair& pair : category.pairs) {
    std::shared_ptr<fcl::CollisionGeometryd> ga = to_fcl_geometry(pair.a);
    std::shared_ptr<fcl::CollisionGeometryd> gb = to_fcl_geometry(pair.b);
    if (ga == nullptr || gb == nullptr) {
      ++f.failed;
      continue;
    }
    fcl::CollisionObjectd oa(ga, to_fcl_transform(pair.pose_a));
    fcl::CollisionObjectd ob(gb, to_fcl_transform(pair.pose_b));
    std::optional<DistanceResult> ours;
    double theirs = 0;
    // One untimed call each (caches, lazy BVH setup), then the timed repeats.
    ours = signed_distance(pair.a, pair.pose_a, pair.b, pair.pose_b);
    theirs = fcl_signed_distance(oa, ob, meshes);
    if (!ours || !std::isfinite(theirs)) {
      ++f.failed;
      continue;
    }
    ours_us.push_back(time_us(repeats, batch, [&] {
      ours = signed_distance(pair.a, pair.pose_a, pair.b, pair.pose_b);
    }));
    fcl_us.push_back(
        time_us(repeats, batch, [&] { theirs = fcl_signed_distance(oa, ob, meshes); }));
    if (const std::optional<double> exact = closed_form_distance(pair)) {
      const double e_ours = std::abs(ours->distance - *exact);
      const double e_fcl = std::abs(theirs - *exact);
      // std::fmax ignores the NaN start value.
      f.max_err_impetus = std::fmax(f.max_err_impetus, e_ours);
      f.max_err_fcl = std::fmax(f.max_err_fcl, e_fcl);
    }
    const double diff = std::abs(ours->distance - theirs);
    const bool ours_separated = ours->distance > 0;
    ours_us_by_state[ours_separated ? 0 : 1].push_back(ours_us.back());
    fcl_us_by_state[ours_separated ? 0 : 1].push_back(fcl_us.back());
    f.sign_agree += ours_separated == (theirs > 0);
    if (ours_separated && theirs > 0) {
      ++f.separated;
      f.max_diff_separated = std::max(f.max_diff_separated, diff);
    } else if (!ours_separated) {
      ++f.overlapping;
      if (!meshes && theirs <= 0) f.max_diff_overlapping = std::max(f.max_diff_overlapping, diff);
    }
  }
  f.us_impetus = median(ours_us);
  f.us_fcl = median(fcl_us);
  f.us_impetus_separated = median(ours_us_by_state[0]);
  f.us_fcl_separated = median(fcl_us_by_state[0]);
  f.us_impetus_overlapping = median(ours_us_by_state[1]);
  f.us_fcl_overlapping = median(fcl_us_by_state[1]);
  return f;
}

int run(int argc, char** argv) {
  bool json = false;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") {
      json = true;
    } else if (arg == "--quick") {
      quick = true;
    } else if (arg == "--help" || arg == "-h") {
      std::printf(
          "usage: impetus-peer-fcl [--json] [--quick]\n\n"
          "Times impetus signed_distance against FCL (fcl::distance with signed distance;\n"
          "meshes: fcl::distance, then fcl::collide contacts for the penetration) on the same\n"
          "fixed-seed random pairs: sphere-sphere, sphere-capsule, capsule-capsule, box-box,\n"
          "convex-convex (hulls of 24 points), mesh-mesh (1,280-triangle bumpy spheres).\n"
          "Figures: <pair>.impetus.us_per_query, <pair>.fcl.us_per_query,\n"
          "<pair>.fcl_over_impetus (> 1: impetus faster), <pair>.max_abs_diff_separated, ...\n"
          "--json prints impetus-bench/1 (suite peer_fcl); --quick runs fewer pairs.\n");
      return 0;
    } else {
      std::fprintf(stderr, "error: impetus-peer-fcl: unknown argument '%s'\n", arg.c_str());
      return 2;
    }
  }
  const int count = quick ? 60 : 1000;
  const int repeats = quick ? 3 : 11;
  const std::vector<PairCategory> categories = make_pair_categories(count, 20240611);

  bench::BenchReport report;
  std::map<std::string, double>& figures = report.figures;
  for (const PairCategory& category : categories) {
    const CategoryFigures f = run_category(category, repeats);
    const std::string& n = category.name;
    figures[n + ".pairs"] = static_cast<double>(category.pairs.size());
    figures[n + ".impetus.us_per_query"] = f.us_impetus;
    figures[n + ".fcl.us_per_query"] = f.us_fcl;
    figures[n + ".fcl_over_impetus"] = f.us_fcl / f.us_impetus;
    figures[n + ".impetus.us_per_query.separated"] = f.us_impetus_separated;
    figures[n + ".fcl.us_per_query.separated"] = f.us_fcl_separated;
    figures[n + ".impetus.us_per_query.overlapping"] = f.us_impetus_overlapping;
    figures[n + ".fcl.us_per_query.overlapping"] = f.us_fcl_overlapping;
    figures[n + ".separated_pairs"] = f.separated;
    figures[n + ".overlapping_pairs"] = f.overlapping;
    figures[n + ".max_abs_diff_separated"] = f.max_diff_separated;
    const int answered = static_cast<int>(category.pairs.size()) - f.failed;
    figures[n + ".sign_agreement_fraction"] =
        answered > 0 ? static_cast<double>(f.sign_agree) / answered : 0.0;
    if (n != "mesh_mesh") figures[n + ".max_abs_diff_overlapping"] = f.max_diff_overlapping;
    if (f.failed > 0) figures[n + ".failed_pairs"] = f.failed;
    if (!std::isnan(f.max_err_impetus)) {
      figures[n + ".impetus.max_abs_err_closed_form"] = f.max_err_impetus;
      figures[n + ".fcl.max_abs_err_closed_form"] = f.max_err_fcl;
    }
    if (category.triangles > 0) figures[n + ".triangles"] = category.triangles;
  }

  const bench::Machine machine = bench::machine_info(1);
  if (json) {
    bench::print_json("peer_fcl", machine, report, false);
    return 0;
  }
  std::printf("impetus-peer-fcl (FCL %s)%s\n", FCL_VERSION, quick ? " --quick" : "");
  bench::print_machine(machine);
  std::printf("%-16s %6s %11s %11s %8s %11s %11s %11s %11s %5s %13s %13s\n", "pair", "pairs",
              "impetus us", "fcl us", "fcl/imp", "imp us sep", "fcl us sep", "imp us ovl",
              "fcl us ovl", "sep", "max|diff|sep", "max|diff|ovl");
  for (const PairCategory& category : categories) {
    const std::string& n = category.name;
    const auto ovl = figures.find(n + ".max_abs_diff_overlapping");
    char ovl_text[32] = "-";
    if (ovl != figures.end()) std::snprintf(ovl_text, sizeof ovl_text, "%.3g", ovl->second);
    std::printf("%-16s %6d %11.3f %11.3f %8.2f %11.3f %11.3f %11.3f %11.3f %5d %13.3g %13s\n",
                n.c_str(), static_cast<int>(figures[n + ".pairs"]),
                figures[n + ".impetus.us_per_query"], figures[n + ".fcl.us_per_query"],
                figures[n + ".fcl_over_impetus"], figures[n + ".impetus.us_per_query.separated"],
                figures[n + ".fcl.us_per_query.separated"],
                figures[n + ".impetus.us_per_query.overlapping"],
                figures[n + ".fcl.us_per_query.overlapping"],
                static_cast<int>(figures[n + ".separated_pairs"]),
                figures[n + ".max_abs_diff_separated"], ovl_text);
  }
  for (const PairCategory& category : categories) {
    const auto err = figures.find(category.name + ".impetus.max_abs_err_closed_form");
    if (err == figures.end()) continue;
    std::printf("%s: max |error| against the closed form: impetus %.3g, FCL %.3g\n",
                category.name.c_str(), err->second,
                figures[category.name + ".fcl.max_abs_err_closed_form"]);
  }
  std::printf("\nmesh_mesh: %d triangles per mesh; overlapping meshes: FCL's penetration is the\n"
              "deepest triangle-pair contact, not a global depth, so only separated pairs are\n"
              "compared there.\n",
              categories.back().triangles);
  return 0;
}

}  // namespace
}  // namespace impetus::peers

int main(int argc, char** argv) {
  try {
    return impetus::peers::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: impetus-peer-fcl: %s\n", e.what());
    return 4;
  }
}
