#include "tools/peers/bullet/peer_harness.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "engine/scene_loader.h"

namespace impetus::peers {
namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

void print_usage(std::FILE* out, const std::string& program) {
  std::fprintf(out,
               "usage: %s [--json] [--quick] [--no-impetus] [--scenes DIR] [--only A,B] "
               "[--steps N] [--repeat N]\n"
               "  --json         print one impetus-bench/1 JSON document on stdout\n"
               "  --quick        a few steps per scene (smoke test)\n"
               "  --no-impetus   do not also run impetus on the same scenes\n"
               "  --scenes DIR   folder of the benchmark scene files\n"
               "  --only A,B     run only these scenes\n"
               "  --steps N      steps per scene (default: the scene's own; --quick: 30)\n"
               "  --repeat N     run each scene N times, peer and impetus alternately; times are\n"
               "                 medians, <scene>.impetus_over_peer the median of the N ratios\n"
               "  --set K=V      peer modelling knob (see the peer's notes)\n",
               program.c_str());
}

}  // namespace

int parse_peer_options(int argc, char** argv, const std::string& program,
                       const std::string& default_scenes_dir, PeerOptions& options) {
  options.scenes_dir = default_scenes_dir;
  long long steps = -1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* what) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "error: %s needs %s\n", arg.c_str(), what);
        return nullptr;
      }
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      print_usage(stdout, program);
      return 1;
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--no-impetus") {
      options.impetus = false;
    } else if (arg == "--scenes") {
      const char* v = value("a directory");
      if (v == nullptr) return 2;
      options.scenes_dir = v;
    } else if (arg == "--only") {
      const char* v = value("scene names");
      if (v == nullptr) return 2;
      options.only = split_commas(v);
    } else if (arg == "--steps") {
      const char* v = value("a positive number");
      if (v == nullptr) return 2;
      char* end = nullptr;
      steps = std::strtoll(v, &end, 10);
      if (end == v || *end != '\0' || steps <= 0) {
        std::fprintf(stderr, "error: --steps needs a positive number, got '%s'\n", v);
        return 2;
      }
    } else if (arg == "--repeat") {
      const char* v = value("a positive number");
      if (v == nullptr) return 2;
      char* end = nullptr;
      const long long n = std::strtoll(v, &end, 10);
      if (end == v || *end != '\0' || n <= 0 || n > 1000) {
        std::fprintf(stderr, "error: --repeat needs a number from 1 to 1000, got '%s'\n", v);
        return 2;
      }
      options.repeat = static_cast<int>(n);
    } else if (arg == "--set") {
      const char* v = value("KEY=VALUE");
      if (v == nullptr) return 2;
      std::string kv = v;
      std::string::size_type eq = kv.find('=');
      char* end = nullptr;
      double number = eq == std::string::npos ? 0.0 : std::strtod(kv.c_str() + eq + 1, &end);
      if (eq == std::string::npos || eq == 0 || end == kv.c_str() + eq + 1 || *end != '\0') {
        std::fprintf(stderr, "error: --set needs KEY=NUMBER, got '%s'\n", v);
        return 2;
      }
      options.settings[kv.substr(0, eq)] = number;
    } else {
      std::fprintf(stderr, "error: unknown argument '%s' (see %s --help)\n", arg.c_str(),
                   program.c_str());
      return 2;
    }
  }
  if (steps > 0) {
    // --steps sets the length of every scene, quick or not.
    options.quick = true;
    options.quick_steps = steps;
  }
  return 0;
}

std::vector<std::string> selected_scenes(const std::vector<std::string>& all,
                                         const PeerOptions& options, PeerReport& report) {
  if (options.only.empty()) return all;
  std::vector<std::string> chosen;
  for (const std::string& name : options.only) {
    if (std::find(all.begin(), all.end(), name) != all.end()) {
      chosen.push_back(name);
    } else {
      report.skipped.push_back(name + ": not a scene this peer runs");
    }
  }
  return chosen;
}

bool load_peer_scene(const PeerOptions& options, const std::string& name, SceneDef& scene,
                     PeerReport& report) {
  std::filesystem::path path = std::filesystem::path(options.scenes_dir) / (name + ".json");
  if (!std::filesystem::exists(path)) {
    report.skipped.push_back(name + ": " + path.string() + " not found (use --scenes DIR)");
    return false;
  }
  SceneLoadResult loaded = load_scene_file(path.string());
  if (!loaded.ok()) {
    report.skipped.push_back(name + ": cannot load: " + loaded.error);
    return false;
  }
  scene = *loaded.scene;
  return true;
}

double setting(const PeerOptions& options, const std::string& key, double fallback) {
  auto it = options.settings.find(key);
  return it == options.settings.end() ? fallback : it->second;
}

long long steps_for(const SceneDef& scene, const PeerOptions& options) {
  return options.quick ? std::min(options.quick_steps, scene.steps) : scene.steps;
}

void print_peer_report(const std::string& suite, const PeerOptions& options,
                       const PeerReport& report) {
  // The peers step on one thread, and impetus is run with threads = 1 beside them.
  bench::Machine machine = bench::machine_info(1);
  machine.extra = report.machine_extra;
  if (options.json) {
    bench::print_json(suite, machine, report, true);
    return;
  }
  std::printf("%s (impetus-bench/1 suite %s)\n", suite.c_str(), suite.c_str());
  bench::print_machine(machine);
  bench::print_figures(report);
}

}  // namespace impetus::peers
