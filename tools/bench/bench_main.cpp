// impetus-bench SUITE [--json] [--quick] [--shared DIR]: runs one benchmark suite and prints its
// figures as a table or as the impetus-bench/1 JSON document (../docs/bench-format.md).
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/bench/bench.h"
#include "tools/bench/suites.h"

namespace impetus::bench {
namespace {

struct Suite {
  const char* name;
  SuiteFn run;
  const char* what;
};

// Suites whose source file is present in this build (see CMakeLists.txt).
std::vector<Suite> suites() {
  std::vector<Suite> list;
#ifdef IMPETUS_BENCH_HAS_SCENES
  list.push_back({"scenes", run_suite_scenes,
                  "pile_boxes_1k, pile_spheres_1k: ms/step at 1 and 2 threads, penetration"});
#endif
#ifdef IMPETUS_BENCH_HAS_ELLIPSOID
  list.push_back({"ellipsoid", run_suite_ellipsoid,
                  "paper 1: closest-approach iterations and ns/pair for the three methods"});
#endif
#ifdef IMPETUS_BENCH_HAS_SOLVER
  list.push_back({"solver", run_suite_solver,
                  "paper 5: orderings A/B/C, chain/tree scaling, Eigen LU, stack/chain accuracy"});
#endif
#ifdef IMPETUS_BENCH_HAS_MCD
  list.push_back({"mcd", run_suite_mcd,
                  "papers 2-3: continuous minimum distance, capsules and meshes, per method"});
#endif
#ifdef IMPETUS_BENCH_HAS_PLANE_TOI
  list.push_back({"plane_toi", run_suite_plane_toi,
                  "convex vs plane time of impact: extreme-vertex method vs discrete steps"});
#endif
#ifdef IMPETUS_BENCH_HAS_PHONG
  list.push_back({"phong", run_suite_phong,
                  "paper 2 section V: Phong penetration distance, cold/warm ms, direction continuity"});
#endif
#ifdef IMPETUS_BENCH_HAS_CLOTH
  list.push_back({"cloth", run_suite_cloth,
                  "paper 4: self-collision culling (none, provot_tang3, tight_5pt), CCD cost"});
#endif
  return list;
}

struct Machine {
  std::string cpu = "unknown";
  int threads = 1;
  std::string build = IMPETUS_BUILD_TYPE;
  std::string commit = "unknown";
};

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    std::string::size_type colon = line.find(':');
    if (colon == std::string::npos) break;
    std::string::size_type start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "unknown" : line.substr(start);
  }
  return "unknown";
}

// The commit of the source tree now (a configure-time hash goes stale after the next commit).
std::string git_commit(const std::string& source_dir) {
  std::string command = "git -C '" + source_dir + "' rev-parse --short HEAD 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string hash;
  if (pipe) {
    char buffer[64];
    while (std::fgets(buffer, sizeof buffer, pipe.get())) hash += buffer;
  }
  while (!hash.empty() && (hash.back() == '\n' || hash.back() == '\r')) hash.pop_back();
  if (!hash.empty()) return hash;
  return IMPETUS_GIT_COMMIT;
}

Machine machine_info(const std::string& source_dir) {
  Machine m;
  m.cpu = cpu_model();
  m.threads = omp_get_max_threads();
  m.commit = git_commit(source_dir);
  if (m.build.empty()) m.build = "unspecified";
  return m;
}

void print_json(const std::string& suite, const Machine& m, const BenchReport& report) {
  nlohmann::ordered_json doc;
  doc["format"] = "impetus-bench/1";
  doc["suite"] = suite;
  doc["machine"] = {{"cpu", m.cpu}, {"threads", m.threads}, {"build", m.build},
                    {"commit", m.commit}};
  doc["figures"] = nlohmann::ordered_json::object();
  for (const auto& [name, value] : report.figures) doc["figures"][name] = value;
  doc["skipped"] = report.skipped;
  std::cout << doc.dump(2) << '\n';
}

void print_table(const std::string& suite, const Machine& m, const BenchReport& report) {
  std::printf("impetus-bench %s\n", suite.c_str());
  std::printf("machine: %s, %d threads, %s build, commit %s\n\n", m.cpu.c_str(), m.threads,
              m.build.c_str(), m.commit.c_str());
  std::size_t width = 6;
  for (const auto& [name, value] : report.figures) width = std::max(width, name.size());
  std::printf("%-*s  %s\n", static_cast<int>(width), "figure", "value");
  for (const auto& [name, value] : report.figures) {
    std::printf("%-*s  %.6g\n", static_cast<int>(width), name.c_str(), value);
  }
  if (!report.skipped.empty()) {
    std::printf("\nskipped:\n");
    for (const std::string& s : report.skipped) std::printf("  - %s\n", s.c_str());
  }
  if (!report.notes.empty()) {
    std::printf("\nnotes:\n");
    for (const std::string& s : report.notes) std::printf("  - %s\n", s.c_str());
  }
}

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "usage: impetus-bench SUITE [--json] [--quick] [--shared DIR]\n"
               "  --json        print one impetus-bench/1 JSON document on stdout\n"
               "  --quick       reduced sizes (CI smoke test)\n"
               "  --shared DIR  folder holding scenes/ (default: <source>/../shared)\n"
               "suites:\n");
  for (const Suite& s : suites()) std::fprintf(out, "  %-10s %s\n", s.name, s.what);
}

int run(int argc, char** argv) {
  BenchOptions options;
  options.source_dir = IMPETUS_SOURCE_DIR;
  options.shared_dir = options.source_dir + "/../shared";
  std::string suite_name;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      print_usage(stdout);
      return 0;
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--shared") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "error: --shared needs a directory\n");
        return 2;
      }
      options.shared_dir = argv[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      std::fprintf(stderr, "error: unknown option '%s' (see impetus-bench --help)\n", arg.c_str());
      return 2;
    } else if (suite_name.empty()) {
      suite_name = arg;
    } else {
      std::fprintf(stderr, "error: unexpected argument '%s' (one suite per run)\n", arg.c_str());
      return 2;
    }
  }
  if (suite_name.empty()) {
    print_usage(stderr);
    return 2;
  }

  const Suite* suite = nullptr;
  std::vector<Suite> all = suites();
  for (const Suite& s : all) {
    if (suite_name == s.name) suite = &s;
  }
  if (suite == nullptr) {
    std::string names;
    for (const Suite& s : all) names += (names.empty() ? "" : ", ") + std::string(s.name);
    std::fprintf(stderr, "error: unknown suite '%s' (suites: %s)\n", suite_name.c_str(),
                 names.c_str());
    return 2;
  }

  BenchReport report;
  int status = suite->run(options, report);
  Machine m = machine_info(options.source_dir);
  if (options.json) {
    print_json(suite->name, m, report);
  } else {
    print_table(suite->name, m, report);
  }
  return status;
}

}  // namespace
}  // namespace impetus::bench

int main(int argc, char** argv) {
  try {
    return impetus::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: internal: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "error: internal: unknown exception\n");
  }
  return 4;
}
