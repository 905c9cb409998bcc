// impetus-peer-bullet: the shared benchmark scenes, loaded by impetus's own scene loader, run in
// Bullet (btDiscreteDynamicsWorld for rigid scenes, btSoftRigidDynamicsWorld for the cloths),
// measured by the same SceneProbe as impetus, and optionally impetus itself in the same run.
// Prints a table, or with --json an impetus-bench/1 document of suite "peer_bullet".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "tools/peers/bullet/bullet_cloth_world.h"
#include "tools/peers/bullet/bullet_rigid_world.h"
#include "tools/peers/bullet/impetus_side_run.h"
#include "tools/peers/bullet/peer_harness.h"
#include "tools/peers/bullet/scene_probe.h"

namespace impetus::peers {
namespace {

const std::vector<std::string> kScenes = {
    "stack_boxes_10", "capsule_chain_50", "ragdolls_20",    "newton_cradle",
    "pile_spheres_1k", "pile_boxes_1k",   "ellipsoids_500", "cloth_hang_64",
    "cloth_drape_sphere", "pile_boxes_10k"};

using Clock = std::chrono::steady_clock;

// Returns the peer's ms per step (mean over the run's step calls), or 0 when it could not run.
double run_rigid(const SceneDef& scene, long long steps, PeerReport& report) {
  BulletRigidWorld world(scene);
  SceneProbe probe(scene);
  std::vector<ProbeBodyState> states;
  double seconds = 0;
  int contacts_max = 0;
  for (long long s = 0; s < steps; ++s) {
    Clock::time_point start = Clock::now();
    world.step();
    seconds += std::chrono::duration<double>(Clock::now() - start).count();
    world.read_states(states);
    probe.observe(static_cast<double>(s + 1) * scene.world.dt, states, world.max_penetration());
    contacts_max = std::max(contacts_max, world.contact_points());
  }
  double ms = 1e3 * seconds / static_cast<double>(std::max<long long>(steps, 1));
  report.figures[scene.name + ".ms_per_step"] = ms;
  report.figures[scene.name + ".contacts_max"] = contacts_max;
  report.figures[scene.name + ".steps"] = static_cast<double>(steps);
  probe.add_figures(scene.name, report.figures);
  return ms;
}

double run_cloth(const SceneDef& scene, long long steps, const PeerOptions& options,
                 PeerReport& report) {
  BulletClothSettings settings;
  settings.clusters = static_cast<int>(setting(options, "clusters", settings.clusters));
  settings.bend_stiffness = setting(options, "bend_stiffness", settings.bend_stiffness);
  settings.position_iterations =
      static_cast<int>(setting(options, "piterations", settings.position_iterations));
  settings.self_collision = setting(options, "self_collision", 1.0) != 0.0;
  settings.vertex_face = setting(options, "vertex_face", settings.vertex_face ? 1.0 : 0.0) != 0.0;
  settings.margin = setting(options, "margin", settings.margin);
  BulletClothWorld world(scene, settings);
  SceneProbe probe(scene);
  std::vector<ProbeBodyState> states;  // cloth scenes: static bodies only
  for (const BodyDef& b : scene.bodies) {
    ProbeBodyState s;
    s.pose = Pose{b.position, b.orientation};
    states.push_back(s);
  }
  std::vector<Vec3> x;
  double seconds = 0;
  for (long long s = 0; s < steps; ++s) {
    Clock::time_point start = Clock::now();
    world.step();
    seconds += std::chrono::duration<double>(Clock::now() - start).count();
    probe.observe(static_cast<double>(s + 1) * scene.world.dt, states, 0.0);
    for (int c = 0; c < world.cloth_count(); ++c) {
      world.read_cloth(c, x);
      probe.observe_cloth(c, x);
    }
  }
  double ms = 1e3 * seconds / static_cast<double>(std::max<long long>(steps, 1));
  report.figures[scene.name + ".ms_per_step"] = ms;
  report.figures[scene.name + ".steps"] = static_cast<double>(steps);
  if (world.cloth_count() > 0) {
    report.figures[scene.name + ".clusters"] = world.cluster_count(0);
    report.figures[scene.name + ".links"] = world.link_count(0);
  }
  probe.add_figures(scene.name, report.figures);
  return ms;
}

int run(int argc, char** argv) {
  PeerOptions options;
  int parsed = parse_peer_options(argc, argv, "impetus-peer-bullet",
                                  std::string(IMPETUS_SOURCE_DIR) + "/scenes/bench", options);
  if (parsed == 1) return 0;
  if (parsed == 2) return 2;

  PeerReport report;
  report.machine_extra["peer"] =
      "Bullet " + std::to_string(btGetVersion() / 100) + "." +
      std::to_string(btGetVersion() % 100) +
      " float64 libraries (BT_USE_DOUBLE_PRECISION; the README's Bullet figures were float)";
  report.machine_extra["timing"] =
      "ms_per_step = mean over the run of the step calls only (one run per scene, or the median "
      "of --repeat N runs)";
  report.notes.push_back(
      "Bullet float64 build: libimpetus links libBulletCollision-float64 for its broadphase and "
      "the single-precision Bullet libraries export the same symbols");
  report.notes.push_back(
      "rigid: default btSequentialImpulseConstraintSolver (10 iterations, split impulse), "
      "default margins, sleeping on; mass and inertia from impetus's mass properties; friction "
      "sqrt(mu_a mu_b), restitution max(e_a, e_b) via Bullet's combine callbacks");
  report.notes.push_back(
      "ellipsoids_500: Bullet has no ellipsoid; a 162-point inscribed convex hull (margin 1 mm)");
  report.notes.push_back(
      "newton_cradle.momentum_transfer = sqrt(highest rise of the last ball in the first 0.6 "
      "periods / release height of the first ball) = speed out / speed in for pendulums, 1 ideal; "
      ".peak_speed_ratio = peak row velocity of the last ball / of the first (same window)");
  report.notes.push_back(
      "cloth: btSoftBody from impetus's grid (same vertices/triangles), links on triangle "
      "edges (kLST 1), distance-2 bending links (kLST 0.1), 4 position iterations (Bullet's "
      "default 1 diverges on both cloths; --set piterations=N), "
      "self-collision CL_SS|CL_SELF with 64 clusters, SDF_RS vs rigid, margin = thickness; "
      "planes as 10 m thick boxes; scene stiffnesses in N/m have no Bullet counterpart");
  // The 10,000-box pile costs seconds per step pair in --quick's smoke run: full runs, or --only.
  std::vector<std::string> scenes = kScenes;
  if (options.quick && options.only.empty()) {
    scenes.erase(std::find(scenes.begin(), scenes.end(), "pile_boxes_10k"));
    report.notes.push_back("pile_boxes_10k: full runs only (or --only pile_boxes_10k)");
  }
  run_peer_scenes("bullet", scenes, options, report, [&](const SceneDef& scene, long long steps) {
    return scene.cloths.empty() ? run_rigid(scene, steps, report)
                                : run_cloth(scene, steps, options, report);
  });
  print_peer_report("peer_bullet", options, report);
  return 0;
}

}  // namespace
}  // namespace impetus::peers

int main(int argc, char** argv) {
  try {
    return impetus::peers::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
