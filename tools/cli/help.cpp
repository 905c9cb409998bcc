// Help texts of the `impetus` program.
#include "tools/cli/commands.h"

namespace impetus::cli {

namespace {

constexpr const char* kCommonOptions =
    "  --log-level L   trace|debug|info|warn|error|off (default: info when stderr is a\n"
    "                  terminal, warn otherwise); logs go to stderr only\n"
    "  -q, --quiet     only errors on stderr, no progress bar\n"
    "  -h, --help      show this help\n";

}  // namespace

std::string general_help() {
  return std::string(
             "impetus " IMPETUS_VERSION
             ": rigid bodies, articulations and cloth stepped together\n"
             "\n"
             "usage: impetus <command> [options]\n"
             "\n"
             "commands:\n"
             "  run SCENE --out DIR          step a scene, write summary.json, "
             "trajectory.jsonl, report.html\n"
             "  validate SCENE               load and check a scene, print its counts\n"
             "  query FILE|-                 answer geometric queries (impetus-query/1), JSON "
             "on stdout\n"
             "  check SCENE --golden FILE    run a scene and compare it with a golden "
             "summary.json\n"
             "  view DIR                     write DIR/report.html (3D playback and plots) for "
             "a run\n"
             "  batch MANIFEST               many runs and sweeps with checks: report.json,\n"
             "                               report.txt, JUnit XML (also under mpirun)\n"
             "  help [COMMAND]               this help, or a command's\n"
             "\n"
             "options:\n"
             "  --version       print the version\n") +
         kCommonOptions +
         "\n"
         "exit status: 0 ok, 1 check mismatch or failed batch run, 2 invalid scene, query,\n"
         "manifest or command line, 3 simulation diverged, 4 internal error. Errors are one\n"
         "line on stderr starting 'error:' that names the file and the JSON path.\n"
         "Run 'impetus <command> --help' for a command's options.\n";
}

std::string command_help(const std::string& command) {
  if (command == "run") {
    return std::string(
               "usage: impetus run SCENE --out DIR [options]\n"
               "\n"
               "Steps SCENE (impetus-scene/1 JSON) and writes DIR/summary.json,\n"
               "DIR/trajectory.jsonl, DIR/shapes.json and DIR/report.html, a page that plays\n"
               "the run back and plots its figures (open it from file://; DIR is created if\n"
               "missing; nothing is written when the scene is invalid). Exit 0 when the run\n"
               "finished, 2 for an invalid scene or command line, 3 when the simulation\n"
               "diverged (summary and report still written).\n"
               "\n"
               "options:\n"
               "  --out DIR       output folder (required)\n"
               "  --steps N       number of steps, instead of the scene's duration\n"
               "  --threads N     worker threads, 0 = all cores (results never depend on it)\n"
               "  --solver S      block | sequential_impulse: overrides settings.solver\n"
               "  --every N       write a trajectory frame every N steps (default: ~100 "
               "frames)\n"
               "  --no-meshes     do not write cloth meshes\n"
               "  --no-report     do not write report.html\n"
               "  --gltf FILE     also write the run as binary glTF 2.0 (.glb)\n") +
           kCommonOptions;
  }
  if (command == "view") {
    return std::string(
               "usage: impetus view DIR [options]\n"
               "\n"
               "Writes DIR/report.html (and DIR/report_files/) for the results of an earlier\n"
               "`impetus run` and prints its file:// URL. The page plays the trajectory back\n"
               "in 3D (every shape, cloth, joints) and plots energy, contacts, penetration,\n"
               "joint error, time per phase and sleeping bodies against time.\n"
               "Exit 0 when written, 2 when DIR is not a readable results folder.\n"
               "\n"
               "options:\n"
               "  --scene SCENE   rewrite DIR/shapes.json from SCENE first (for results of an\n"
               "                  impetus that did not write it)\n"
               "  --gltf FILE     also write the run as binary glTF 2.0 (.glb)\n"
               "  --no-report     do not write report.html (with --gltf)\n") +
           kCommonOptions;
  }
  if (command == "validate") {
    return std::string(
               "usage: impetus validate SCENE [options]\n"
               "\n"
               "Loads and checks SCENE without running it; prints one line with its counts.\n"
               "Exit 0 when valid, 2 otherwise (with the file and JSON path of the problem).\n"
               "\n"
               "options:\n") +
           kCommonOptions;
  }
  if (command == "query") {
    return std::string(
               "usage: impetus query FILE|- [options]\n"
               "\n"
               "Answers a batch of geometric queries (impetus-query/1, '-' reads stdin) and\n"
               "prints one impetus-query-result/1 JSON document on stdout. Query types:\n"
               "  distance          signed distance, witness points and normal (any shapes)\n"
               "  closest_approach  ellipsoids, paper 1 (newton_bisection|fixed_point|steffensen)\n"
               "  mcd               minimum of continuous distance over an interval, paper 2\n"
               "                    (hybrid|golden_section|conservative_advancement|\n"
               "                    adaptive_subdivision|sampling)\n"
               "  plane_toi         convex vs plane time of impact, paper 3\n"
               "                    (extreme_vertex|discrete)\n"
               "  phong_distance    gradient-continuous penetration distance, paper 2 section V\n"
               "An invalid query gets an error in its slot, the others are still answered, and\n"
               "the exit status is 2. Format: tools/docs/query-format.md.\n"
               "\n"
               "options:\n") +
           kCommonOptions;
  }
  if (command == "check") {
    return std::string(
               "usage: impetus check SCENE --golden SUMMARY.json [options]\n"
               "\n"
               "Runs SCENE for the golden's number of steps and compares the final body states\n"
               "with SUMMARY.json (from an earlier `impetus run`). Exit 0 when they agree,\n"
               "1 with a report of the worst bodies when not, 2 for invalid input.\n"
               "\n"
               "options:\n"
               "  --golden FILE   the reference summary.json (required)\n"
               "  --tol X         largest allowed error over all bodies of position [m],\n"
               "                  orientation [rad], linear [m/s] and angular [rad/s] velocity\n"
               "                  (default 1e-6)\n"
               "  --exact         require a bit-identical state_hash instead\n"
               "  --steps N       override the number of steps (default: the golden's)\n"
               "  --threads N     worker threads, 0 = all cores\n"
               "  --solver S      block | sequential_impulse: overrides settings.solver\n"
               "  --out DIR       also write this run's results to DIR\n"
               "  --every N       trajectory frame interval with --out\n") +
           kCommonOptions;
  }
  if (command == "batch") {
    return std::string(
               "usage: impetus batch MANIFEST [options]\n"
               "\n"
               "Runs every run and sweep of MANIFEST (impetus-batch/1, tools/docs/batch-format.md),\n"
               "each into DIR/<run-id>/ (the files of `impetus run`), checks them, and writes\n"
               "DIR/report.json and DIR/report.txt. One line per finished run on stderr, and a\n"
               "bar with ETA on a terminal. A run that diverges or whose scene is invalid is that\n"
               "run's failure; the others still run. Exit 0 when every check passed, 1 when a\n"
               "check failed or a run could not run, 2 for an invalid manifest or command line\n"
               "(nothing written). Under `mpirun -n K` the runs spread over K ranks; rank 0\n"
               "writes the same files.\n"
               "\n"
               "options:\n"
               "  --out DIR          results folder (default results/batch/<manifest name>)\n"
               "  -j, --jobs N       runs at once in this process, one thread each (default 1);\n"
               "                     results are byte-identical to a serial batch\n"
               "  --junit FILE       also write a JUnit XML report (one testcase per run)\n"
               "  --only REGEX       only the runs whose id matches (ECMAScript, search)\n"
               "  --update-goldens   rewrite every golden from this batch's results\n"
               "  --no-meshes        do not write cloth meshes\n"
               "  --no-report        do not write each run's report.html\n"
               "  --rank-timeout S   under MPI: give up a rank silent for S seconds (default 60)\n") +
           kCommonOptions;
  }
  return "";
}

}  // namespace impetus::cli
