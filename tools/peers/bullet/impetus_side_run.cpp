#include "tools/peers/bullet/impetus_side_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "engine/world.h"
#include "engine/world_builder.h"
#include "tools/peers/bullet/scene_probe.h"

namespace impetus::peers {

double run_impetus_side(const SceneDef& scene, long long steps, double peer_ms_per_step,
                        PeerReport& report) {
  const std::string prefix = scene.name + ".impetus";
  std::unique_ptr<World> world;
  try {
    WorldDef def = scene.world;
    def.threads = 1;
    world = build_world(scene, def);
  } catch (const std::exception& e) {
    report.skipped.push_back(prefix + ": the impetus World rejected the scene: " + e.what());
    return 0.0;
  }
  SceneProbe probe(scene);
  std::vector<ProbeBodyState> states(scene.bodies.size());
  double seconds = 0;
  long long done = 0;
  for (; done < steps; ++done) {
    auto start = std::chrono::steady_clock::now();
    world->step();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (world->status() == WorldStatus::Diverged) {
      report.notes.push_back(prefix + " diverged: " + world->divergence_message());
      ++done;
      break;
    }
    for (int i = 0; i < world->body_count(); ++i) {
      BodyState s = world->body_state(world->body_id(i));
      states[i].pose = Pose{s.position, s.orientation};
      states[i].linear_velocity = s.linear_velocity;
    }
    probe.observe(world->time(), states, world->current_max_penetration());
    for (int c = 0; c < world->cloth_count(); ++c) {
      probe.observe_cloth(c, world->cloth_positions(c));
    }
  }
  double ms = done > 0 ? 1e3 * seconds / static_cast<double>(done) : 0.0;
  report.figures[prefix + ".ms_per_step"] = ms;
  probe.add_figures(prefix, report.figures);
  if (peer_ms_per_step > 0 && ms > 0) {
    report.figures[scene.name + ".impetus_over_peer"] = ms / peer_ms_per_step;
  }
  return ms;
}

void run_peer_scenes(const std::string& peer, const std::vector<std::string>& scenes,
                     const PeerOptions& options, PeerReport& report,
                     const std::function<double(const SceneDef&, long long)>& run_peer) {
  if (options.impetus) {
    report.notes.push_back(
        "<scene>.impetus.*: impetus's World on the same SceneDef in the same process, threads = 1");
  }
  if (options.repeat > 1) {
    report.notes.push_back(
        "--repeat " + std::to_string(options.repeat) +
        ": each scene ran that many times, peer and impetus alternately; <scene>.ms_per_step and "
        "<scene>.impetus.ms_per_step are the medians of the runs, <scene>.impetus_over_peer the "
        "median of the runs' ratios (min and max beside it); the other figures are the last run's "
        "(both engines are deterministic: every run gives them alike)");
  }
  for (const std::string& name : selected_scenes(scenes, options, report)) {
    SceneDef scene;
    if (!load_peer_scene(options, name, scene, report)) continue;
    const long long steps = steps_for(scene, options);
    std::vector<double> peer_ms, impetus_ms, ratios;
    for (int round = 0; round < options.repeat; ++round) {
      const std::string of = options.repeat > 1 ? " run " + std::to_string(round + 1) + "/" +
                                                      std::to_string(options.repeat)
                                                : std::string();
      try {
        std::fprintf(stderr, "%s: %s (%lld steps)%s...\n", peer.c_str(), name.c_str(), steps, of.c_str());
        peer_ms.push_back(run_peer(scene, steps));
      } catch (const std::exception& e) {
        report.skipped.push_back(name + ": " + e.what());
        break;
      }
      if (!options.impetus) continue;
      std::fprintf(stderr, "impetus: %s (%lld steps)%s...\n", name.c_str(), steps, of.c_str());
      const double ours = run_impetus_side(scene, steps, peer_ms.back(), report);
      if (ours <= 0) break;  // rejected or not stepped: said in skipped / notes
      impetus_ms.push_back(ours);
      if (peer_ms.back() > 0) ratios.push_back(ours / peer_ms.back());
    }
    if (options.repeat == 1 || peer_ms.empty()) continue;
    report.figures[name + ".runs"] = static_cast<double>(peer_ms.size());
    report.figures[name + ".ms_per_step"] = bench::median(peer_ms);
    if (!impetus_ms.empty()) report.figures[name + ".impetus.ms_per_step"] = bench::median(impetus_ms);
    if (!ratios.empty()) {
      report.figures[name + ".impetus_over_peer"] = bench::median(ratios);
      report.figures[name + ".impetus_over_peer_min"] = *std::min_element(ratios.begin(), ratios.end());
      report.figures[name + ".impetus_over_peer_max"] = *std::max_element(ratios.begin(), ratios.end());
    }
  }
}

}  // namespace impetus::peers
