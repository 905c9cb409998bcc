#include "tools/peers/bullet/impetus_side_run.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <vector>

#include "engine/world.h"
#include "engine/world_builder.h"
#include "tools/peers/bullet/scene_probe.h"

namespace impetus::peers {

void run_impetus_side(const SceneDef& scene, long long steps, double peer_ms_per_step,
                      PeerReport& report) {
  const std::string prefix = scene.name + ".impetus";
  std::unique_ptr<World> world;
  try {
    WorldDef def = scene.world;
    def.threads = 1;
    world = build_world(scene, def);
  } catch (const std::exception& e) {
    report.skipped.push_back(prefix + ": the impetus World rejected the scene: " + e.what());
    return;
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
}

void run_peer_scenes(const std::string& peer, const std::vector<std::string>& scenes,
                     const PeerOptions& options, PeerReport& report,
                     const std::function<double(const SceneDef&, long long)>& run_peer) {
  if (options.impetus) {
    report.notes.push_back(
        "<scene>.impetus.*: impetus's World on the same SceneDef in the same process, threads = 1");
  }
  for (const std::string& name : selected_scenes(scenes, options, report)) {
    SceneDef scene;
    if (!load_peer_scene(options, name, scene, report)) continue;
    const long long steps = steps_for(scene, options);
    double peer_ms = 0;
    try {
      std::fprintf(stderr, "%s: %s (%lld steps)...\n", peer.c_str(), name.c_str(), steps);
      peer_ms = run_peer(scene, steps);
    } catch (const std::exception& e) {
      report.skipped.push_back(name + ": " + e.what());
      continue;
    }
    if (options.impetus) {
      std::fprintf(stderr, "impetus: %s (%lld steps)...\n", name.c_str(), steps);
      run_impetus_side(scene, steps, peer_ms, report);
    }
  }
}

}  // namespace impetus::peers
