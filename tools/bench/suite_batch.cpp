// Suite `batch`: throughput of `impetus batch` on a 32-run sweep of a small scene
// (scenes/bench/stack_boxes_10.json: friction × restitution × seed, 4 × 2 × 4), run as the user
// runs it, through the `impetus` program: one process one run at a time, one process with
// --jobs 2, and `mpirun -n 2` (when the build has MPI). Figures: runs per second of each (wall
// time of the whole command, start-up included; median of 3, --quick: 1 with shorter runs) and
// the parallel efficiency of the two parallel ones against the single process
// (rate / (2 × single rate)).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tools/bench/suites.h"

#ifndef IMPETUS_CLI_PATH
#define IMPETUS_CLI_PATH ""
#endif
#ifndef IMPETUS_MPIEXEC
#define IMPETUS_MPIEXEC ""
#endif

namespace impetus::bench {
namespace {

namespace fs = std::filesystem;

constexpr int kRuns = 32;
constexpr int kRepeats = 3;
constexpr long long kSteps = 3840;       // 16 s of the stack: ~0.3 s a run on one core
constexpr long long kQuickSteps = 240;

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// Wall seconds of `command`, or a negative number when it fails. Exit 1 would be a failed
// check: the sweep has none, so anything but 0 is a failure.
double timed(const std::string& command) {
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return seconds;
}

}  // namespace

int run_suite_batch(const BenchOptions& options, BenchReport& report) {
  const std::string cli = IMPETUS_CLI_PATH;
  const std::string scene = options.scenes_dir + "/stack_boxes_10.json";
  if (cli.empty() || !fs::exists(cli)) {
    report.skipped.push_back("process_1/jobs_2/ranks_2: the impetus program is not built");
    return 0;
  }
  if (!fs::exists(scene)) {
    report.skipped.push_back("process_1/jobs_2/ranks_2: " + scene + " not found");
    return 0;
  }
  const fs::path work = fs::temp_directory_path() / ("impetus_bench_batch_" + std::to_string(::getpid()));
  fs::create_directories(work);
  const long long steps = options.quick ? kQuickSteps : kSteps;
  {
    std::ofstream manifest(work / "sweep.batch.json");
    manifest << "{\"format\": \"impetus-batch/1\", \"name\": \"bench_sweep\", \"sweeps\": [{\n"
             << "  \"id\": \"stack\", \"scene\": \"" << fs::absolute(scene).string() << "\",\n"
             << "  \"parameters\": {\"friction\": [0.3, 0.5, 0.7, 0.9], \"restitution\": [0, 0.1],"
             << " \"seed\": [1, 2, 3, 4]},\n"
             << "  \"overrides\": {\"settings\": {\"steps\": " << steps << ", \"seed\": \"${seed}\"},\n"
             << "    \"materials\": {\"default\": {\"friction\": \"${friction}\","
             << " \"restitution\": \"${restitution}\"}}}}]}\n";
  }
  const std::string batch = quoted(cli) + " batch " + quoted((work / "sweep.batch.json").string()) +
                            " --no-meshes --quiet --out ";
  const std::string silence = " >/dev/null 2>&1";
  // mpirun refuses root unless told; loopback only, as the ctest runs do.
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  const std::string mpiexec = IMPETUS_MPIEXEC;
  struct Config {
    const char* name;
    std::string command;
  };
  std::vector<Config> configs = {
      {"process_1", batch + quoted((work / "p1").string()) + silence},
      {"jobs_2", batch + quoted((work / "j2").string()) + " --jobs 2" + silence},
  };
  if (!mpiexec.empty()) {
    configs.push_back({"ranks_2", quoted(mpiexec) + " -n 2 --oversubscribe --mca btl self,tcp"
                                  " --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo " +
                                      batch + quoted((work / "r2").string()) + silence});
  } else {
    report.skipped.push_back("ranks_2: this build has no MPI (install libopenmpi-dev, openmpi-bin)");
  }
  const int repeats = options.quick ? 1 : kRepeats;
  double single_rate = 0;
  int status = 0;
  for (const Config& config : configs) {
    std::vector<double> seconds;
    for (int r = 0; r < repeats; ++r) {
      const double s = timed(config.command);
      if (s < 0) break;
      seconds.push_back(s);
    }
    const std::string name = config.name;
    if (static_cast<int>(seconds.size()) < repeats) {
      report.skipped.push_back(name + ": the batch failed (" + config.command + ")");
      status = 1;
      continue;
    }
    const double rate = kRuns / median(seconds);
    report.figures[name + ".runs_per_s"] = rate;
    report.figures[name + ".seconds"] = median(seconds);
    if (name == "process_1") {
      single_rate = rate;
    } else if (single_rate > 0) {
      report.figures[name + ".efficiency"] = rate / (2.0 * single_rate);
    }
  }
  report.figures["runs"] = kRuns;
  report.figures["steps_per_run"] = static_cast<double>(steps);
  report.notes.push_back("32-run sweep of stack_boxes_10 (friction x restitution x seed), " +
                         std::to_string(steps) + " steps a run, one engine thread per run; "
                         "wall time of the whole command, start-up included; efficiency = "
                         "runs_per_s / (2 x process_1.runs_per_s)");
  std::error_code ec;
  fs::remove_all(work, ec);
  return status;
}

}  // namespace impetus::bench
