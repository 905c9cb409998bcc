#include "engine/scene_runner.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <nlohmann/json.hpp>
#include <omp.h>

#include "collision/base/log.h"
#include "cloth/cloth_obj.h"
#include "engine/atomic_file.h"
#include "engine/state_hash.h"
#include "engine/world_builder.h"

#ifndef IMPETUS_VERSION
#define IMPETUS_VERSION "unknown"
#endif
#ifndef IMPETUS_BUILD_TYPE
#define IMPETUS_BUILD_TYPE "unknown"
#endif

namespace impetus {

namespace {

namespace fs = std::filesystem;
// Insertion order keeps summary.json in the order of the spec, which people read top down.
using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;


Json vec3_json(const Vec3& v) { return Json::array({v.x(), v.y(), v.z()}); }

Json quat_json(const Quat& q) { return Json::array({q.w(), q.x(), q.y(), q.z()}); }

Json body_state_json(const BodyState& s) {
  Json j = Json::object();
  j["position"] = vec3_json(s.position);
  j["orientation"] = quat_json(s.orientation);
  j["linear_velocity"] = vec3_json(s.linear_velocity);
  j["angular_velocity"] = vec3_json(s.angular_velocity);
  return j;
}

// Pretty enough for people, compact enough for 1000 bodies: the top-level keys and the entries
// of top-level objects get a line each; everything deeper stays on that line.
std::string dump_two_levels(const Json& doc) {
  std::string out = "{\n";
  bool first = true;
  for (const auto& [key, value] : doc.items()) {
    if (!first) out += ",\n";
    first = false;
    out += "  " + Json(key).dump() + ": ";
    if (value.is_object() && !value.empty()) {
      out += "{\n";
      bool first_inner = true;
      for (const auto& [inner_key, inner_value] : value.items()) {
        if (!first_inner) out += ",\n";
        first_inner = false;
        out += "    " + Json(inner_key).dump() + ": " + inner_value.dump();
      }
      out += "\n  }";
    } else {
      out += value.dump();
    }
  }
  out += "\n}\n";
  return out;
}

// Builds the world; on a def the World rejects, returns the message "FILE: PATH: problem".
std::unique_ptr<World> build_run_world(const SceneDef& scene, const RunOptions& options,
                                       std::vector<BodyId>* ids, std::string* error) {
  WorldDef def = scene.world;
  if (options.threads) def.threads = *options.threads;
  try {
    return build_world(scene, def, ids);
  } catch (const std::invalid_argument& e) {
    const std::string& file = options.scene_file.empty() ? scene.name : options.scene_file;
    *error = file + ": " + e.what();
    return nullptr;
  }
}

// The bodies that appear in outputs and in the hash: dynamic and kinematic, scene order.
std::vector<BodyId> moving_bodies(const World& world, const std::vector<BodyId>& ids) {
  std::vector<BodyId> moving;
  for (BodyId id : ids) {
    if (world.body_motion(id) != MotionType::Static) moving.push_back(id);
  }
  return moving;
}

Json bodies_json(const World& world, const std::vector<BodyId>& moving) {
  Json bodies = Json::object();
  for (BodyId id : moving) bodies[world.body_name(id)] = body_state_json(world.body_state(id));
  return bodies;
}

// Wall-clock milliseconds per step by phase over the steps since the previous frame (zeros on the
// first frame). The only frame figures that differ between runs of the same scene.
class FrameTimer {
 public:
  Json phases_since_last_frame(const World& world) {
    const WorldStats& stats = world.stats();
    const long long steps = world.step_count() - last_step_;
    Json phases = Json::object();
    for (int p = 0; p < kStepPhaseCount; ++p) {
      const double seconds = stats.phase_seconds[p];
      phases[step_phase_name(static_cast<StepPhase>(p))] =
          steps > 0 ? (seconds - last_seconds_[p]) * 1000.0 / static_cast<double>(steps) : 0.0;
      last_seconds_[p] = seconds;
    }
    last_step_ = world.step_count();
    return phases;
  }

 private:
  long long last_step_ = 0;
  std::array<double, kStepPhaseCount> last_seconds_{};
};

Json frame_json(const World& world, const std::vector<BodyId>& moving, FrameTimer* timer) {
  Json frame = Json::object();
  frame["step"] = world.step_count();
  frame["time"] = world.time();
  frame["bodies"] = bodies_json(world, moving);
  frame["contacts"] = world.contact_count();
  frame["energy"] = world.total_energy();
  frame["max_penetration"] = world.current_max_penetration();
  frame["joint_error"] = world.current_joint_error();
  frame["bodies_asleep"] = world.stats().bodies_asleep;
  frame["ms_per_step_by_phase"] = timer->phases_since_last_frame(world);
  return frame;
}

struct RunTimes {
  double wall_seconds = 0;  // the whole stepping loop, trajectory output included
  double step_seconds = 0;  // inside World::step only
  double energy_start = 0;
};

Json summary_json(const World& world, const SceneDef& scene, const std::vector<BodyId>& moving,
                  const FinalStates& final, const RunTimes& times) {
  const WorldStats& stats = world.stats();
  const long long steps = world.step_count();
  const double per_step_ms = steps > 0 ? 1000.0 / static_cast<double>(steps) : 0.0;
  const int threads = world.def().threads > 0 ? world.def().threads : omp_get_max_threads();

  Json summary = Json::object();
  summary["format"] = "impetus-summary/1";
  summary["scene"] = scene.name;
  summary["engine"] = {{"version", IMPETUS_VERSION}, {"threads", threads},
                       {"build", IMPETUS_BUILD_TYPE}};
  summary["status"] = final.status;
  if (world.status() == WorldStatus::Diverged) summary["divergence"] = world.divergence_message();
  summary["steps"] = steps;
  summary["time"] = world.time();
  summary["state_hash"] = final.state_hash;
  summary["bodies"] = bodies_json(world, moving);
  summary["cloths"] = Json::object();
  for (int c = 0; c < world.cloth_count(); ++c) {
    Aabb box;
    for (const Vec3& v : world.cloth_positions(c)) box.grow(v);
    summary["cloths"][world.cloth_name(c)] = {
        {"vertices", world.cloth_positions(c).size()},
        {"bbox_min", {box.min.x(), box.min.y(), box.min.z()}},
        {"bbox_max", {box.max.x(), box.max.y(), box.max.z()}},
        {"self_intersections", world.cloth_self_intersections(c)},
        {"max_strain", world.cloth_max_strain(c)},
        {"max_strain_seen", world.cloth_max_strain_seen(c)},
        {"max_compression", world.cloth_max_compression(c)}};
  }

  Json phases = Json::object();
  for (int p = 0; p < kStepPhaseCount; ++p)
    phases[step_phase_name(static_cast<StepPhase>(p))] = stats.phase_seconds[p] * per_step_ms;
  // The cloth phase broken down (flat keys beside the total, which stays a number).
  if (world.cloth_count() > 0) {
    for (int p = 0; p < kClothPhaseCount; ++p) {
      phases[std::string("cloth.") + cloth_phase_name(static_cast<ClothPhase>(p))] =
          stats.cloth_phase_seconds[p] * per_step_ms;
    }
  }
  Json s = Json::object();
  s["wall_seconds"] = times.wall_seconds;
  s["ms_per_step"] = times.step_seconds * per_step_ms;
  s["ms_per_step_by_phase"] = phases;
  s["contacts_max"] = stats.contacts_max;
  s["max_penetration"] = stats.max_penetration;
  s["energy_start"] = times.energy_start;
  s["energy_end"] = world.total_energy();
  s["joint_error_max"] = stats.joint_error_max;
  s["joint_angle_error_max"] = stats.joint_angle_error_max;
  s["active_set_iterations_max"] = stats.active_set_iterations_max;
  s["exact_island_solves"] = stats.exact_island_solves;
  s["iterative_island_solves"] = stats.iterative_island_solves;
  s["exact_attempts_failed"] = stats.exact_attempts_failed;
  s["exact_attempts_skipped"] = stats.exact_attempts_skipped;
  s["bodies_asleep"] = stats.bodies_asleep;
  s["sleeping_body_steps"] = stats.sleeping_body_steps;
  if (world.cloth_count() > 0) s["cloth_self_intersections_max"] = stats.cloth_self_intersections_max;
  summary["stats"] = s;
  return summary;
}

bool prepare_out_dir(const fs::path& dir, std::string* error) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    *error = dir.string() + ": cannot create output directory" +
             (ec ? ": " + ec.message() : std::string(": a file of that name exists"));
    return false;
  }
  return true;
}

}  // namespace

long long default_output_every(long long steps) {
  return std::max<long long>(1, (steps + 99) / 100);
}

std::string hash_final_states(const std::vector<FinalBodyState>& bodies,
                              const std::vector<std::vector<Vec3>>& cloths) {
  StateHasher hasher;
  for (const FinalBodyState& body : bodies) {
    const BodyState& s = body.state;
    const double values[13] = {s.position.x(),         s.position.y(),
                               s.position.z(),         s.orientation.w(),
                               s.orientation.x(),      s.orientation.y(),
                               s.orientation.z(),      s.linear_velocity.x(),
                               s.linear_velocity.y(),  s.linear_velocity.z(),
                               s.angular_velocity.x(), s.angular_velocity.y(),
                               s.angular_velocity.z()};
    hasher.add(values, 13);
  }
  for (const std::vector<Vec3>& vertices : cloths) {
    for (const Vec3& v : vertices) hasher.add(v.data(), 3);
  }
  return hasher.hex();
}

RunOutcome run_scene(const SceneDef& scene, const RunOptions& options) {
  RunOutcome outcome;
  const long long total_steps = options.steps ? *options.steps : scene.steps;
  long long every = options.every ? *options.every : scene.output_every;
  if (every <= 0) every = default_output_every(total_steps);

  // Everything that can reject the scene happens before the first byte is written.
  std::vector<BodyId> ids;
  std::unique_ptr<World> world = build_run_world(scene, options, &ids, &outcome.error);
  if (!world) {
    outcome.exit_code = 2;
    return outcome;
  }
  const std::vector<BodyId> moving = moving_bodies(*world, ids);

  // Output problems (an unwritable folder, a full disk) are exit 4 and leave no summary.json.
  const bool writing = !options.out_dir.empty();
  const fs::path dir(options.out_dir);
  AtomicFile trajectory;
  if (writing && (!prepare_out_dir(dir, &outcome.error) ||
                  !trajectory.open((dir / "trajectory.jsonl").string(), &outcome.error))) {
    outcome.exit_code = kRunExitOutput;
    return outcome;
  }
  logger()->info("scene '{}': {} bodies ({} moving), {} steps of {} s, {} thread(s)", scene.name,
                 ids.size(), moving.size(), total_steps, world->def().dt,
                 world->def().threads > 0 ? world->def().threads : omp_get_max_threads());

  RunTimes times;
  times.energy_start = world->total_energy();
  const Clock::time_point start = Clock::now();
  const bool meshes = writing && options.write_meshes && world->cloth_count() > 0;
  FrameTimer frame_timer;
  auto write_frame = [&]() -> bool {
    trajectory.write(frame_json(*world, moving, &frame_timer).dump());
    trajectory.write("\n");
    if (!meshes) return true;
    for (int c = 0; c < world->cloth_count(); ++c) {
      char name[64];
      std::snprintf(name, sizeof name, "_%06lld.obj", world->step_count());
      const fs::path path = dir / "cloth" / (world->cloth_name(c) + name);
      std::ostringstream obj;
      write_cloth_obj(obj, world->cloth_positions(c), world->cloth_triangles(c));
      if (!write_file_atomically(path.string(), obj.str(), &outcome.error)) return false;
    }
    return true;
  };
  if (meshes && !prepare_out_dir(dir / "cloth", &outcome.error)) {
    outcome.exit_code = kRunExitOutput;
    return outcome;
  }
  if (writing && !write_frame()) {
    outcome.exit_code = kRunExitOutput;
    return outcome;
  }
  bool diverged = false;
  int interrupted_by = 0;
  for (long long i = 0; i < total_steps; ++i) {
    // A signal that arrived during the previous step (or before the first) ends the run here,
    // between steps, so the state written is a whole step's.
    if (options.interrupt != nullptr && *options.interrupt != 0) {
      interrupted_by = *options.interrupt;
      break;
    }
    const Clock::time_point before = Clock::now();
    world->step();
    times.step_seconds += std::chrono::duration<double>(Clock::now() - before).count();
    diverged = world->status() == WorldStatus::Diverged;
    const long long done = world->step_count();
    // The final frame is written whether or not it falls on the `every` grid; a diverged run
    // ends here too, so its trajectory shows the state that was rejected.
    const bool last = diverged || i + 1 == total_steps;
    if (writing && (last || done % every == 0) && !write_frame()) {
      outcome.exit_code = kRunExitOutput;
      return outcome;
    }
    if (options.progress) options.progress(i + 1, total_steps);
    if (diverged) break;
  }
  times.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  outcome.wall_seconds = times.wall_seconds;

  FinalStates& final = outcome.final;
  final.scene = scene.name;
  final.status = diverged ? "diverged" : interrupted_by != 0 ? "interrupted" : "ok";
  final.steps = world->step_count();
  for (BodyId id : moving) final.bodies.push_back({world->body_name(id), world->body_state(id)});
  for (int c = 0; c < world->cloth_count(); ++c) final.cloth_positions.push_back(world->cloth_positions(c));
  final.state_hash = hash_final_states(final.bodies, final.cloth_positions);

  if (diverged) {
    outcome.exit_code = 3;
    outcome.error = world->divergence_message();
  } else if (interrupted_by != 0) {
    // The shell's convention for a program ended by a signal: 128 + its number (SIGINT 130,
    // SIGTERM 143).
    outcome.exit_code = 128 + interrupted_by;
    outcome.error = "interrupted by signal " + std::to_string(interrupted_by) + " after " +
                    std::to_string(final.steps) + " of " + std::to_string(total_steps) + " steps";
  }
  if (!writing) return outcome;

  // An interrupted run's trajectory ends with the state it stopped at.
  if (interrupted_by != 0 && world->step_count() % every != 0 && !write_frame()) {
    outcome.exit_code = kRunExitOutput;
    return outcome;
  }
  std::string io_error;
  if (!trajectory.commit(&io_error)) {
    outcome.exit_code = kRunExitOutput;
    outcome.error = io_error;
    return outcome;
  }
  outcome.files_written.push_back(trajectory.path());
  const fs::path summary_path = dir / "summary.json";
  const Json summary = summary_json(*world, scene, moving, final, times);
  if (!write_file_atomically(summary_path.string(), dump_two_levels(summary), &io_error)) {
    outcome.exit_code = kRunExitOutput;
    outcome.error = io_error;
    return outcome;
  }
  outcome.files_written.push_back(summary_path.string());
  return outcome;
}

}  // namespace impetus
