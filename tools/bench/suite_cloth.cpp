// Suite `cloth` (spec/bench-format.md): normal-cone culling of cloth self-collision
// (papers/4) on the shared scenes cloth_hang_64 and cloth_drape_sphere, and on a hanging cloth
// of the paper's size (120 × 120 quads, 14,641 vertices; the paper's has 14,657).
//
// Each scene is simulated once (tight_5pt culling; culling is exact, so every mode gives the
// same trajectory — tests/cloth/cloth_sim_test.cpp checks that bit for bit). At every step the
// self-collision input (x0 and the step's displacement u, before any response) is handed to
// all three culling modes in turn, which each refit the BVH with their cones, traverse it and
// run the vertex–triangle / edge–edge CCD of the surviving pairs: `pairs_mean` counts the
// triangle pairs (no common vertex) left after culling, `ms_per_frame` is refit + traversal +
// CCD, i.e. the paper's construction + traverse time plus the primitive tests. The scene
// files are parsed here directly with nlohmann (the scene loader does not build cloth).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cloth/cloth_mesh.h"
#include "cloth/cloth_sim.h"
#include "cloth/cloth_topology.h"
#include "cloth/self_collision.h"
#include "tools/bench/bench.h"

namespace impetus::bench {

int run_suite_cloth(const BenchOptions& options, BenchReport& report);

namespace {

using Clock = std::chrono::steady_clock;

struct ClothScene {
  std::string name;
  ClothMesh mesh;
  ClothParams params;
  std::vector<RigidCollider> colliders;
  Vec3 gravity = Vec3(0, 0, -9.81);
  double dt = 1.0 / 240;
  long long steps = 0;
};

Vec3 vec3(const nlohmann::json& v) { return Vec3(v[0].get<double>(), v[1].get<double>(), v[2].get<double>()); }

bool load_scene(const std::string& path, ClothScene& scene, std::string* error) {
  std::ifstream file(path);
  if (!file) {
    *error = path + ": cannot open";
    return false;
  }
  try {
    const nlohmann::json doc = nlohmann::json::parse(file);
    scene.name = doc.at("name").get<std::string>();
    const nlohmann::json& settings = doc.at("settings");
    if (settings.contains("gravity")) scene.gravity = vec3(settings["gravity"]);
    scene.dt = settings.at("dt").get<double>();
    scene.steps = settings.contains("steps") ? settings["steps"].get<long long>()
                                             : std::llround(settings.at("duration").get<double>() / scene.dt);
    double default_friction = 0.5;
    if (doc.contains("materials") && doc["materials"].contains("default"))
      default_friction = doc["materials"]["default"].value("friction", 0.5);
    int body = 0;
    for (const nlohmann::json& b : doc.at("bodies")) {
      const nlohmann::json& s = b.at("shape");
      const std::string type = s.at("type").get<std::string>();
      RigidCollider c;
      c.body = body++;
      c.friction = default_friction;
      if (type == "plane") {
        c.shape = Shape::plane(vec3(s.at("normal")).normalized(), s.value("offset", 0.0));
      } else if (type == "sphere") {
        c.shape = Shape::sphere(s.at("radius").get<double>());
      } else {
        continue;  // the cloth scenes only have planes and spheres
      }
      if (b.contains("position")) c.pose.position = vec3(b["position"]);
      c.center_of_mass = c.pose.position;
      scene.colliders.push_back(c);
    }
    const nlohmann::json& cloth = doc.at("cloths").at(0);
    const nlohmann::json& grid = cloth.at("grid");
    const nlohmann::json& q = grid.value("orientation", nlohmann::json::array({1, 0, 0, 0}));
    scene.mesh = make_grid_cloth({grid.at("size")[0].get<double>(), grid.at("size")[1].get<double>()},
                                 {grid.at("resolution")[0].get<int>(), grid.at("resolution")[1].get<int>()},
                                 vec3(grid.value("center", nlohmann::json::array({0, 0, 0}))),
                                 Quat(q[0].get<double>(), q[1].get<double>(), q[2].get<double>(), q[3].get<double>()).normalized());
    ClothParams& p = scene.params;
    p.areal_density = cloth.value("areal_density", p.areal_density);
    p.stretch_stiffness = cloth.value("stretch_stiffness", p.stretch_stiffness);
    p.shear_stiffness = cloth.value("shear_stiffness", p.shear_stiffness);
    p.bend_stiffness = cloth.value("bend_stiffness", p.bend_stiffness);
    p.damping = cloth.value("damping", p.damping);
    p.thickness = cloth.value("thickness", p.thickness);
    p.friction = cloth.value("friction", p.friction);
    p.strain_limit = cloth.value("strain_limit", p.strain_limit);
    p.pinned = cloth.value("pin", std::vector<int>{});
    p.self_collision = cloth.value("self_collision", true);
  } catch (const std::exception& e) {
    *error = path + ": " + e.what();
    return false;
  }
  return true;
}

constexpr ConeCulling kModes[] = {ConeCulling::None, ConeCulling::ProvotTang3, ConeCulling::Tight5pt};

// Simulates the scene and measures the three culling modes on every step's CCD input.
bool measure(const ClothScene& scene, long long steps, const std::string& key, BenchReport& report) {
  ClothParams params = scene.params;
  params.culling = ConeCulling::Tight5pt;
  ClothSim cloth(scene.mesh, params);
  ClothTopology topology = ClothTopology::build(static_cast<int>(scene.mesh.vertices.size()), scene.mesh.triangles);
  SelfCollision probe;
  probe.build(topology, scene.mesh.vertices);
  const double eta = std::max(1e-3 * params.thickness, 1e-9);
  double pairs_sum[3] = {0, 0, 0}, seconds[3] = {0, 0, 0}, cpu_seconds[3] = {0, 0, 0};
  long long contacts_sum[3] = {0, 0, 0};
  std::vector<PrimitivePair> candidates;
  std::vector<SelfContact> contacts;
  cloth.before_self_collision = [&](const std::vector<Vec3>& x0, const std::vector<Vec3>& u) {
    for (int m = 0; m < 3; ++m) {
      long long pairs = 0;
      const Clock::time_point start = Clock::now();
      const std::clock_t cpu_start = std::clock();
      probe.ccd_candidates(x0, u, kModes[m], eta, params.threads, candidates, &pairs);
      probe.ccd_contacts(candidates, x0, u, eta, params.threads, contacts);
      cpu_seconds[m] += static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
      seconds[m] += std::chrono::duration<double>(Clock::now() - start).count();
      pairs_sum[m] += static_cast<double>(pairs);
      contacts_sum[m] += static_cast<long long>(contacts.size());
    }
  };
  std::vector<RigidImpulse> reactions;
  int intersections_max = 0;
  double step_seconds = 0, step_cpu_seconds = 0, cg = 0;
  long long frozen = 0, zones = 0;
  for (long long k = 0; k < steps; ++k) {
    reactions.clear();
    const Clock::time_point start = Clock::now();
    const std::clock_t cpu_start = std::clock();
    cloth.step(scene.dt, scene.gravity, scene.colliders, reactions);
    step_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    // The probes run inside step() (before_self_collision); their time is not the step's.
    step_cpu_seconds += static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    const ClothStats& s = cloth.stats();
    intersections_max = std::max(intersections_max, s.self_intersections);
    cg += s.cg_iterations;
    frozen += s.frozen ? 1 : 0;
    zones += s.impact_zones > 0 ? 1 : 0;
    for (const Vec3& x : cloth.positions()) {
      if (!x.allFinite()) {
        std::fprintf(stderr, "cloth suite: %s diverged at step %lld\n", key.c_str(), k);
        return false;
      }
    }
  }
  const double n = static_cast<double>(std::max<long long>(steps, 1));
  for (int m = 0; m < 3; ++m) {
    const std::string mode = cone_culling_name(kModes[m]);
    report.figures[key + "." + mode + ".pairs_mean"] = pairs_sum[m] / n;
    report.figures[key + "." + mode + ".ms_per_frame"] = 1e3 * seconds[m] / n;
    // Processor time (all threads) of the same work: steadier than wall time on a shared machine.
    report.figures[key + "." + mode + ".cpu_ms_per_frame"] = 1e3 * cpu_seconds[m] / n;
    report.figures[key + "." + mode + ".contacts_mean"] = static_cast<double>(contacts_sum[m]) / n;
  }
  report.figures[key + ".vertices"] = cloth.vertex_count();
  report.figures[key + ".triangles"] = static_cast<double>(cloth.triangles().size());
  report.figures[key + ".self_intersections_max"] = intersections_max;
  report.figures[key + ".steps"] = n;
  double probe_seconds = 0, probe_cpu = 0;
  for (int m = 0; m < 3; ++m) {
    probe_seconds += seconds[m];
    probe_cpu += cpu_seconds[m];
  }
  report.figures[key + ".ms_per_step"] = 1e3 * (step_seconds - probe_seconds) / n;
  report.figures[key + ".cpu_ms_per_step"] = 1e3 * (step_cpu_seconds - probe_cpu) / n;
  report.figures[key + ".cg_iterations_mean"] = cg / n;
  report.figures[key + ".stretch_mean"] = cloth.mean_edge_strain();
  report.figures[key + ".stretch_max"] = cloth.max_edge_strain();
  report.figures[key + ".impact_zone_steps"] = static_cast<double>(zones);
  report.figures[key + ".frozen_steps"] = static_cast<double>(frozen);
  // Every mode must see the same contacts (culling is exact).
  if (contacts_sum[0] != contacts_sum[1] || contacts_sum[0] != contacts_sum[2]) {
    std::fprintf(stderr, "cloth suite: %s: culling modes found different contacts (%lld, %lld, %lld)\n",
                 key.c_str(), contacts_sum[0], contacts_sum[1], contacts_sum[2]);
    return false;
  }
  return true;
}

// ms per step by phase (ClothStats timers) without the culling probes, at a given thread count.
void measure_phases(const ClothScene& scene, long long steps, int threads, const std::string& key,
                    BenchReport& report) {
  ClothParams params = scene.params;
  params.threads = threads;
  ClothSim cloth(scene.mesh, params);
  std::vector<RigidImpulse> reactions;
  const char* names[] = {"internal_forces", "solve", "rigid", "culling", "ccd", "response", "intersection_count"};
  double sum[7] = {0, 0, 0, 0, 0, 0, 0};
  double total = 0;
  for (long long k = 0; k < steps; ++k) {
    reactions.clear();
    const Clock::time_point start = Clock::now();
    cloth.step(scene.dt, scene.gravity, scene.colliders, reactions);
    total += std::chrono::duration<double>(Clock::now() - start).count();
    const ClothStats& st = cloth.stats();
    const double phase[7] = {st.seconds_internal_forces, st.seconds_solve, st.seconds_rigid, st.seconds_culling,
                             st.seconds_ccd, st.seconds_response, st.seconds_intersection_count};
    for (int i = 0; i < 7; ++i) sum[i] += phase[i];
  }
  const double n = static_cast<double>(std::max<long long>(steps, 1));
  const std::string suffix = ".ms.threads_" + std::to_string(threads);
  for (int i = 0; i < 7; ++i) report.figures[key + ".phase." + names[i] + suffix] = 1e3 * sum[i] / n;
  report.figures[key + ".phase.total" + suffix] = 1e3 * total / n;
}

}  // namespace

int run_suite_cloth(const BenchOptions& options, BenchReport& report) {
  int status = 0;
  const long long quick_steps = 30;
  struct Entry {
    const char* file;
    const char* key;
  };
  for (const Entry& e : {Entry{"cloth_hang_64.json", "hang"}, Entry{"cloth_drape_sphere.json", "drape"}}) {
    ClothScene scene;
    std::string error;
    if (!load_scene(options.scenes_dir + "/" + e.file, scene, &error)) {
      report.skipped.push_back(std::string(e.key) + ": " + error);
      status = 1;
      continue;
    }
    if (!measure(scene, options.quick ? quick_steps : scene.steps, e.key, report)) status = 1;
    if (std::string(e.key) == "hang") {
      for (int threads : {1, 2}) measure_phases(scene, options.quick ? quick_steps : scene.steps, threads, "hang", report);
    }
  }
  // The paper's hanging cloth: same material as cloth_hang_64, 120 × 120 quads, pinned at the
  // two corners of one edge, 400 frames as in the paper (Table 5-5).
  {
    ClothScene scene;
    std::string error;
    if (load_scene(options.scenes_dir + "/cloth_hang_64.json", scene, &error)) {
      const int res = 120;
      scene.mesh = make_grid_cloth({2, 2}, {res, res}, Vec3(0, 0, 3), Quat::Identity());
      scene.params.pinned = {0, res};
      if (!measure(scene, options.quick ? 10 : 400, "hang_paper", report)) status = 1;
      report.notes.push_back("hang_paper: 120x120 quads (14,641 vertices, 28,800 triangles), "
                             "cloth_hang_64 material, 400 steps at 1/240 s");
    } else {
      report.skipped.push_back("hang_paper: " + error);
      status = 1;
    }
  }
  report.notes.push_back("pairs_mean: triangle pairs without a common vertex left after culling; "
                         "ms_per_frame: refit + traversal + vertex-triangle/edge-edge CCD on the same "
                         "per-step input for every mode");
  return status;
}

}  // namespace impetus::bench
