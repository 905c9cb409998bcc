// `impetus check SCENE --golden SUMMARY.json`: run a scene and compare with a golden summary.
#include <cstdio>
#include <string>
#include <vector>

#include "collision/base/log.h"
#include "engine/golden_check.h"
#include "tools/cli/commands.h"
#include "tools/cli/scene_command.h"

namespace impetus::cli {

int command_check(const std::vector<std::string>& args) {
  std::string error;
  std::vector<OptionSpec> specs = scene_run_option_specs();
  specs.push_back({"--golden", true, ""});
  specs.push_back({"--tol", true, ""});
  specs.push_back({"--exact", false, ""});
  std::optional<ParsedArgs> parsed = parse_args("check", args, specs, &error);
  if (!parsed) {
    print_error(error);
    return kExitInvalid;
  }
  if (parsed->has("--help")) {
    std::fputs(command_help("check").c_str(), stdout);
    return kExitOk;
  }
  RunOptions options;
  GoldenOptions golden_options;
  if (!setup_logging(*parsed, &error) || !read_run_options(*parsed, &options, &error)) {
    print_error("check: " + error);
    return kExitInvalid;
  }
  if (std::optional<std::string> text = parsed->get("--tol")) {
    std::optional<double> tol = parse_non_negative("--tol", *text, &error);
    if (!tol) {
      print_error("check: " + error);
      return kExitInvalid;
    }
    golden_options.tolerance = *tol;
  }
  golden_options.exact = parsed->has("--exact");
  if (golden_options.exact && parsed->has("--tol")) {
    print_error("check: --tol and --exact exclude each other");
    return kExitInvalid;
  }
  if (parsed->positionals.size() != 1) {
    print_error(parsed->positionals.empty()
                    ? "check: missing SCENE (see 'impetus check --help')"
                    : "check: unexpected argument '" + parsed->positionals[1] + "'");
    return kExitInvalid;
  }
  std::optional<std::string> golden_path = parsed->get("--golden");
  if (!golden_path) {
    print_error("check: missing --golden SUMMARY.json (see 'impetus check --help')");
    return kExitInvalid;
  }

  std::optional<FinalStates> golden = load_golden_summary(*golden_path, &error);
  if (!golden) {
    print_error(error);
    return kExitInvalid;
  }
  nlohmann::json overrides;
  if (!read_scene_overrides(*parsed, &overrides, &error)) {
    print_error("check: " + error);
    return kExitInvalid;
  }
  const std::string& scene_path = parsed->positionals.front();
  std::optional<SceneDef> scene = load_scene_or_report(scene_path, overrides);
  if (!scene) return kExitInvalid;
  options.scene_file = scene_path;
  // A golden made with `run --steps N` is checked over the same N steps.
  if (!options.steps) options.steps = golden->steps;

  RunOutcome outcome = run_with_progress(*scene, options, parsed->has("--quiet"));
  if (outcome.exit_code == kExitInvalid || outcome.exit_code == kExitOutput) {
    print_error(outcome.error);
    return outcome.exit_code;
  }
  if (outcome.exit_code == kExitDiverged) {
    // Not an error of the check itself: the comparison of statuses below decides.
    logger()->warn("{}: simulation diverged: {}", scene_path, outcome.error);
  }
  GoldenReport report = compare_with_golden(outcome.final, *golden, golden_options);
  std::fputs(report.text.c_str(), stdout);
  if (!options.out_dir.empty()) logger()->info("results of this run in {}", options.out_dir);
  return report.passed ? kExitOk : kExitCheckFailed;
}

}  // namespace impetus::cli
