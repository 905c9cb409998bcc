#pragma once
// Runs a loaded scene headlessly and writes its results (../shared/spec/output-format.md):
// DIR/summary.json and DIR/trajectory.jsonl. This is the code behind `impetus run` and
// `impetus check`; an embedding program that wants the same files can call it directly.
//
// state_hash covers every dynamic and kinematic body in scene order (static bodies never move,
// so hashing them would only make the hash depend on how the scene spells its ground), each as
// position, orientation [w, x, y, z], linear and angular velocity; then each cloth's vertex
// positions, in scene order. The same bodies, in the same order, are the ones listed under
// "bodies" in summary.json and in every trajectory frame. With cloth, every trajectory frame
// also writes DIR/cloth/<name>_<step, 6 digits>.obj unless RunOptions::write_meshes is false.
#include <csignal>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/world.h"
#include "engine/world_def.h"

namespace impetus {

/// Overrides and output choices for one run. Unset overrides keep the scene's values.
struct RunOptions {
  std::string scene_file;                 // used in error messages ("FILE: PATH: problem")
  std::string out_dir;                    // created if missing; empty = write nothing
  std::optional<long long> steps;         // overrides SceneDef::steps (>= 0)
  std::optional<int> threads;             // overrides WorldDef::threads (0 = all cores)
  std::optional<int> every;               // overrides SceneDef::output_every (>= 1)
  bool write_meshes = true;               // cloth OBJ per trajectory frame
  /// Called after every step with (steps done, total steps); for progress display.
  std::function<void(long long, long long)> progress;
  /// When set and non-zero (a signal handler stores the signal's number), the run stops
  /// before its next step and writes its outputs with status "interrupted".
  const volatile std::sig_atomic_t* interrupt = nullptr;
};

/// RunOutcome::exit_code when an output file cannot be written (also `impetus`'s exit 4).
inline constexpr int kRunExitOutput = 4;

/// Final state of one dynamic or kinematic body.
struct FinalBodyState {
  std::string name;
  BodyState state;
};

/// What a run ends with; also what a golden summary.json holds (see golden_check.h).
struct FinalStates {
  std::string scene;
  std::string status = "ok";     // "ok" | "diverged" | "interrupted"
  long long steps = 0;           // steps actually taken
  std::string state_hash;        // 16 lower-case hex digits
  std::vector<FinalBodyState> bodies;  // dynamic + kinematic bodies, scene order
  std::vector<std::vector<Vec3>> cloth_positions;  // per cloth, scene order
};

struct RunOutcome {
  /// 0 = finished, 2 = the scene cannot be built (nothing written), 3 = diverged (summary
  /// still written), 4 = an output file cannot be written (no summary.json), 128 + N =
  /// interrupted by signal N (RunOptions::interrupt; summary written, status "interrupted").
  int exit_code = 0;
  /// One line, without the "error: " prefix: "FILE: PATH: problem" or the divergence reason.
  std::string error;
  FinalStates final;
  double wall_seconds = 0;
  std::vector<std::string> files_written;  // paths, in the order written
};

/// Builds a World from `scene`, steps it, writes the outputs. Never throws for bad scenes or
/// I/O problems (they become exit codes); only std::bad_alloc and the like escape.
RunOutcome run_scene(const SceneDef& scene, const RunOptions& options);

/// Trajectory frame interval used when neither the scene nor the options give one: about 100
/// frames over the run.
long long default_output_every(long long steps);

/// The state_hash of summary.json for the given final body states (scene order), followed by
/// every cloth's vertex positions.
std::string hash_final_states(const std::vector<FinalBodyState>& bodies,
                              const std::vector<std::vector<Vec3>>& cloths = {});

}  // namespace impetus
