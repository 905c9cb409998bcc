// impetus-bench SUITE [--json] [--quick] [--scenes DIR]: runs one benchmark suite and prints its
// figures as a table or as the impetus-bench/1 JSON document (../docs/bench-format.md).
#include <omp.h>

#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tools/bench/bench.h"
#include "tools/bench/suites.h"

namespace impetus::bench {
namespace {

struct Suite {
  std::string name;
  SuiteFn run;
  std::string what;
};

// Every suite in listing order, with the line --help shows for it.
const std::vector<std::pair<std::string, std::string>> kDescriptions = {
    {"scenes", "every benchmark scene: ms/step at 1 and 2 threads, penetration, allocations/step"},
    {"ellipsoid", "paper 1: closest-approach iterations and ns/pair for the three methods"},
    {"solver", "paper 5: orderings A/B/C, chain/tree scaling, Eigen LU, stack/chain accuracy"},
    {"mcd", "papers 2-3: continuous minimum distance, capsules and meshes, per method"},
    {"plane_toi", "convex vs plane time of impact: extreme-vertex method vs discrete steps"},
    {"phong", "paper 2 section V: Phong penetration distance, cold/warm ms, direction continuity"},
    {"cloth", "paper 4: self-collision culling (none, provot_tang3, tight_5pt), CCD cost"},
    {"batch", "impetus batch: runs/s of 1 process, --jobs 2 and 2 MPI ranks, efficiency"},
    {"soak", "box_pile, ragdolls, cloth_box_stack x 100,000 steps: divergence, memory, energy, sleep"},
};

// Suites whose source file is present in this build: CMakeLists.txt writes one
// IMPETUS_BENCH_SUITE(name) line per suite_<name>.cpp into bench_suite_list.inc, so that a suite
// still being written elsewhere never breaks the link of the others.
std::vector<Suite> suites() {
  std::map<std::string, SuiteFn> present;
#define IMPETUS_BENCH_SUITE(name) present[#name] = run_suite_##name;
#include "bench_suite_list.inc"
#undef IMPETUS_BENCH_SUITE
  std::vector<Suite> list;
  for (const auto& [name, what] : kDescriptions) {
    auto it = present.find(name);
    if (it == present.end()) continue;
    list.push_back({name, it->second, what});
    present.erase(it);
  }
  for (const auto& [name, run] : present) list.push_back({name, run, "(no description)"});
  return list;
}

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "usage: impetus-bench SUITE [--json] [--quick] [--scenes DIR]\n"
               "  --json        print one impetus-bench/1 JSON document on stdout\n"
               "  --quick       reduced sizes (CI smoke test)\n"
               "  --scenes DIR  folder of the benchmark scene files (default: <source>/scenes/bench)\n"
               "  --shared DIR  the same as --scenes DIR/scenes (a copy of the shared folder)\n"
               "suites:\n");
  for (const Suite& s : suites()) {
    std::fprintf(out, "  %-10s %s\n", s.name.c_str(), s.what.c_str());
  }
}

int run(int argc, char** argv) {
  BenchOptions options;
  options.source_dir = IMPETUS_SOURCE_DIR;
  options.scenes_dir = options.source_dir + "/scenes/bench";
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
    } else if (arg == "--scenes" || arg == "--shared") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "error: %s needs a directory\n", arg.c_str());
        return 2;
      }
      options.scenes_dir = argv[++i];
      if (arg == "--shared") options.scenes_dir += "/scenes";
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
    for (const Suite& s : all) names += (names.empty() ? "" : ", ") + s.name;
    std::fprintf(stderr, "error: unknown suite '%s' (suites: %s)\n", suite_name.c_str(),
                 names.c_str());
    return 2;
  }

  BenchReport report;
  int status = suite->run(options, report);
  Machine machine = machine_info(omp_get_max_threads());
  if (options.json) {
    print_json(suite->name, machine, report, false);
  } else {
    std::printf("impetus-bench %s\n", suite->name.c_str());
    print_machine(machine);
    print_figures(report);
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
