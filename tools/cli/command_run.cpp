// `impetus run SCENE --out DIR`: step a scene and write its results (and its report).
#include <string>
#include <vector>

#include "collision/base/log.h"
#include "engine/scene_overrides.h"
#include "tools/cli/commands.h"
#include "tools/cli/interrupt.h"
#include "tools/cli/progress_bar.h"
#include "tools/cli/scene_command.h"
#include "tools/cli/viewer_outputs.h"
#include "tools/viewer/report_writer.h"

namespace impetus::cli {

std::vector<OptionSpec> scene_run_option_specs() {
  return {{"--out", true, ""},
          {"--steps", true, ""},
          {"--threads", true, ""},
          {"--every", true, ""},
          {"--solver", true, ""},
          {"--no-meshes", false, ""}};
}

bool read_run_options(const ParsedArgs& args, RunOptions* options, std::string* error) {
  if (std::optional<std::string> text = args.get("--steps")) {
    std::optional<long long> steps = parse_integer("--steps", *text, 0, 1'000'000'000'000LL, error);
    if (!steps) return false;
    options->steps = *steps;
  }
  if (std::optional<std::string> text = args.get("--threads")) {
    std::optional<long long> threads = parse_integer("--threads", *text, 0, 4096, error);
    if (!threads) return false;
    options->threads = static_cast<int>(*threads);
  }
  if (std::optional<std::string> text = args.get("--every")) {
    std::optional<long long> every = parse_integer("--every", *text, 1, 1'000'000'000, error);
    if (!every) return false;
    options->every = static_cast<int>(*every);
  }
  if (args.has("--no-meshes")) options->write_meshes = false;
  if (std::optional<std::string> dir = args.get("--out")) {
    if (dir->empty()) {
      *error = "--out: must name a folder";
      return false;
    }
    options->out_dir = *dir;
  }
  return true;
}

bool read_scene_overrides(const ParsedArgs& args, nlohmann::json* overrides, std::string* error) {
  *overrides = nlohmann::json::object();
  if (std::optional<std::string> solver = args.get("--solver")) {
    if (*solver != "block" && *solver != "sequential_impulse") {
      *error = "--solver: unknown solver '" + *solver + "' (block | sequential_impulse)";
      return false;
    }
    (*overrides)["settings"]["solver"] = *solver;
  }
  return true;
}

std::optional<SceneDef> load_scene_or_report(const std::string& path,
                                             const nlohmann::json& overrides) {
  SceneLoadResult loaded = load_scene_file(path, overrides);
  if (!loaded.ok()) {
    print_error(loaded.error);
    return std::nullopt;
  }
  return std::move(*loaded.scene);
}

RunOutcome run_with_progress(const SceneDef& scene, const RunOptions& options, bool quiet) {
  ProgressBar bar(!quiet && stderr_is_tty());
  RunOptions with_progress = options;
  with_progress.progress = [&bar](long long done, long long total) { bar.update(done, total); };
  RunOutcome outcome = run_scene(scene, with_progress);
  bar.finish();
  return outcome;
}

int command_run(const std::vector<std::string>& args) {
  std::string error;
  std::vector<OptionSpec> specs = scene_run_option_specs();
  specs.push_back({"--no-report", false, ""});
  specs.push_back({"--gltf", true, ""});
  std::optional<ParsedArgs> parsed = parse_args("run", args, specs, &error);
  if (!parsed) {
    print_error(error);
    return kExitInvalid;
  }
  if (parsed->has("--help")) {
    std::fputs(command_help("run").c_str(), stdout);
    return kExitOk;
  }
  RunOptions options;
  if (!setup_logging(*parsed, &error) || !read_run_options(*parsed, &options, &error)) {
    print_error("run: " + error);
    return kExitInvalid;
  }
  if (parsed->positionals.size() != 1) {
    print_error(parsed->positionals.empty()
                    ? "run: missing SCENE (see 'impetus run --help')"
                    : "run: unexpected argument '" + parsed->positionals[1] + "'");
    return kExitInvalid;
  }
  if (options.out_dir.empty()) {
    print_error("run: missing --out DIR (see 'impetus run --help')");
    return kExitInvalid;
  }
  ViewerRequest viewer;
  viewer.dir = options.out_dir;
  viewer.report = !parsed->has("--no-report");
  viewer.report_required = false;
  viewer.gltf = parsed->get("--gltf").value_or("");
  if (parsed->has("--gltf") && viewer.gltf.empty()) {
    print_error("run: --gltf: must name a file");
    return kExitInvalid;
  }
  nlohmann::json overrides;
  if (!read_scene_overrides(*parsed, &overrides, &error)) {
    print_error("run: " + error);
    return kExitInvalid;
  }
  const std::string& scene_path = parsed->positionals.front();
  std::optional<SceneDef> scene = load_scene_or_report(scene_path, overrides);
  if (!scene) return kExitInvalid;
  options.scene_file = scene_path;

  InterruptGuard interrupt;
  options.interrupt = interrupt.flag();
  RunOutcome outcome = run_with_progress(*scene, options, parsed->has("--quiet"));
  if (outcome.exit_code == kExitInvalid || outcome.exit_code == kExitOutput) {
    print_error(outcome.error);
    return outcome.exit_code;
  }
  // summary.json is written (finished or diverged): the viewer files describe either.
  viewer.scene = &*scene;
  bool report_written = false;
  if (write_viewer_outputs(viewer, &report_written) != kExitOk) return kExitInvalid;
  if (report_written) logger()->info("report: {}", viewer::report_url(options.out_dir));
  if (outcome.exit_code == kExitDiverged) {
    print_error(scene_path + ": simulation diverged: " + outcome.error);
    logger()->info("partial results (status \"diverged\") in {}", options.out_dir);
    return kExitDiverged;
  }
  if (outcome.final.status == "interrupted") {
    print_error(scene_path + ": " + outcome.error + "; results so far (status \"interrupted\") in " +
                options.out_dir);
    return outcome.exit_code;
  }
  logger()->info("{} steps in {:.3f} s; results in {} (summary.json, trajectory.jsonl)",
                 outcome.final.steps, outcome.wall_seconds, options.out_dir);
  return kExitOk;
}

}  // namespace impetus::cli
