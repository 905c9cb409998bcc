#pragma once
// Shared by the peer benchmark programs (impetus-peer-bullet, impetus-peer-mujoco): command
// line, scene loading through impetus's own loader, and the readable table or impetus-bench/1
// JSON document (../shared/spec/bench-format.md) they print, through impetus-bench's own printers
// (tools/bench/bench.h). It is the library impetus_peer_harness (../CMakeLists.txt), which the
// MuJoCo peer links too, so it depends on impetus only, never on a peer.
#include <map>
#include <string>
#include <vector>

#include "engine/world_def.h"
#include "tools/bench/bench.h"

namespace impetus::peers {

struct PeerOptions {
  bool json = false;
  bool quick = false;              // few steps per scene (smoke tests)
  bool impetus = true;             // also run impetus's World on each scene, same process
  std::string scenes_dir;          // folder of the shared scene files
  std::vector<std::string> only;   // scene names to run (empty = the peer's whole list)
  long long quick_steps = 30;
  // --repeat N: each scene runs N times in the peer and in impetus, alternately (peer, impetus,
  // peer, ...), and the times are medians: this VM's speed drifts by 10-40% within minutes, and a
  // single pair of runs caught the two programs in different spells (ragdolls_20: ratios of
  // 0.82, 0.97 and 1.11 from three single runs of the same binaries).
  int repeat = 1;
  std::map<std::string, double> settings;  // --set KEY=VALUE: peer-specific modelling knobs
};

/// figures, skipped ("<scene>: why") and notes (how scenes were modelled; unlike impetus-bench's,
/// printed in the JSON document too), plus extra machine.* strings (the peer's version ...).
struct PeerReport : bench::BenchReport {
  std::map<std::string, std::string> machine_extra;
};

/// Parses `--json --quick --no-impetus --scenes DIR --only a,b --steps N --repeat N --set KEY=VALUE`. Returns 0 to run,
/// 1 after printing help (exit 0), 2 on a usage error (message already printed).
int parse_peer_options(int argc, char** argv, const std::string& program,
                       const std::string& default_scenes_dir, PeerOptions& options);

/// The scenes of `all` selected by options.only (unknown names are reported in `skipped`).
std::vector<std::string> selected_scenes(const std::vector<std::string>& all,
                                         const PeerOptions& options, PeerReport& report);

/// Loads `<scenes_dir>/<name>.json`; on failure adds a `skipped` entry and returns false.
bool load_peer_scene(const PeerOptions& options, const std::string& name, SceneDef& scene,
                     PeerReport& report);

/// options.settings[key], or `fallback` when not set.
double setting(const PeerOptions& options, const std::string& key, double fallback);

/// Steps to run for a scene: all of them, or options.quick_steps with --quick.
long long steps_for(const SceneDef& scene, const PeerOptions& options);

/// Prints the report as a table (stdout) or as one impetus-bench/1 JSON document.
void print_peer_report(const std::string& suite, const PeerOptions& options,
                       const PeerReport& report);

}  // namespace impetus::peers
