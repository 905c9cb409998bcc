// impetus-peer-mujoco: the shared rigid benchmark scenes, loaded by impetus's own scene loader,
// written as MJCF and run in MuJoCo, measured by the same SceneProbe as impetus; optionally
// impetus itself in the same run. Prints a table, or with --json an impetus-bench/1 document
// of suite "peer_mujoco".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "tools/peers/bullet/impetus_side_run.h"
#include "tools/peers/bullet/peer_harness.h"
#include "tools/peers/bullet/scene_probe.h"
#include "tools/peers/mujoco/mujoco_world.h"

namespace impetus::peers {
namespace {

const std::vector<std::string> kScenes = {"stack_boxes_10",  "capsule_chain_50", "ragdolls_20",
                                          "newton_cradle",   "pile_spheres_1k",  "pile_boxes_1k",
                                          "ellipsoids_500"};

using Clock = std::chrono::steady_clock;

// Returns MuJoCo's ms per step (mean over the run's mj_step calls), or 0 when it failed.
double run_scene(const SceneDef& scene, long long steps, const PeerOptions& options,
                 PeerReport& report) {
  MujocoWorld world(scene);
  // --set solver=0|1|2 (PGS, CG, Newton) and --set iterations=N override MuJoCo's defaults.
  mjModel& m = world.mutable_model();
  m.opt.solver = static_cast<int>(setting(options, "solver", m.opt.solver));
  m.opt.iterations = static_cast<int>(setting(options, "iterations", m.opt.iterations));
  SceneProbe probe(scene);
  std::vector<ProbeBodyState> states;
  double seconds = 0;
  int contacts_max = 0;
  long long done = 0;
  bool diverged = false;
  for (; done < steps; ++done) {
    Clock::time_point start = Clock::now();
    world.step();
    seconds += std::chrono::duration<double>(Clock::now() - start).count();
    world.update_kinematics();
    world.read_states(states);
    probe.observe(static_cast<double>(done + 1) * scene.world.dt, states,
                  world.max_penetration());
    contacts_max = std::max(contacts_max, world.contact_count());
    if (world.data().warning[mjWARN_BADQACC].number > 0) {
      diverged = true;  // MuJoCo reset the state after a bad acceleration
      ++done;
      break;
    }
  }
  if (world.buffer_overflows() > 0) {
    report.skipped.push_back(scene.name + ": MuJoCo's contact/constraint buffer overflowed " +
                             std::to_string(world.buffer_overflows()) +
                             " times (nconmax " + std::to_string(world.mjcf().nconmax) +
                             ", njmax " + std::to_string(world.mjcf().njmax) +
                             "): contacts were dropped");
    return 0;
  }
  if (diverged) {
    report.skipped.push_back(scene.name + ": MuJoCo diverged (bad qacc) at step " +
                             std::to_string(done));
    return 0;
  }
  double ms = 1e3 * seconds / static_cast<double>(std::max<long long>(done, 1));
  report.figures[scene.name + ".ms_per_step"] = ms;
  report.figures[scene.name + ".contacts_max"] = contacts_max;
  report.figures[scene.name + ".steps"] = static_cast<double>(done);
  report.figures[scene.name + ".njmax"] = world.mjcf().njmax;
  if (world.mjcf().cg_solver && !options.settings.count("solver")) {
    report.notes.push_back(scene.name + ": CG solver (" + std::to_string(world.mjcf().nv) +
                           " dofs; MuJoCo 2.2.2's default Newton solver took over 7 s per step "
                           "on these piles here)");
  }
  if (world.mjcf().elliptic_cones) {
    report.notes.push_back(scene.name +
                           ": elliptic friction cones (pyramidal rows would not fit in MuJoCo "
                           "2.2.2's 2 GiB data buffer at njmax " +
                           std::to_string(world.mjcf().njmax) + ")");
  }
  probe.add_figures(scene.name, report.figures);
  return ms;
}

int run(int argc, char** argv) {
  PeerOptions options;
  int parsed = parse_peer_options(argc, argv, "impetus-peer-mujoco",
                                  std::string(IMPETUS_SOURCE_DIR) + "/scenes/bench", options);
  if (parsed == 1) return 0;
  if (parsed == 2) return 2;

  PeerReport report;
  report.machine_extra["peer"] = std::string("MuJoCo ") + mj_versionString();
  report.machine_extra["timing"] =
      "ms_per_step = mean over the run of the mj_step calls only (one run per scene, or the "
      "median of --repeat N runs)";
  report.notes.push_back(
      "MuJoCo defaults: Euler, Newton solver, pyramidal cones, solimp (0.9, 0.95, 0.001); "
      "articulated scenes in reduced coordinates (ball/hinge joints in a kinematic tree), so "
      "their joint error is zero by construction");
  report.notes.push_back(
      "mass and inertia from impetus's mass properties (explicit <inertial>); geom friction = "
      "material mu (MuJoCo combines by max, the scene format by geometric mean: same for one "
      "material); restitution e > 0 as solref (-1/tau^2, -2 zeta/tau), tau = 0.02 s, "
      "zeta = -ln e / sqrt(pi^2 + ln^2 e); e = 0: default solref");
  report.notes.push_back(
      "newton_cradle.momentum_transfer = sqrt(highest rise of the last ball in the first 0.6 "
      "periods / release height of the first ball) = speed out / speed in for pendulums, 1 ideal; "
      ".peak_speed_ratio = peak row velocity of the last ball / of the first (same window)");
  report.notes.push_back("cloth scenes: MuJoCo 2.2.2 has no cloth; not run");
  run_peer_scenes("mujoco", kScenes, options, report, [&](const SceneDef& scene, long long steps) {
    return run_scene(scene, steps, options, report);
  });
  print_peer_report("peer_mujoco", options, report);
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
