#pragma once
// What `impetus run` and `impetus check` share: the run options of the command line and a run
// with the progress bar.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/scene_runner.h"
#include "engine/world_def.h"
#include "tools/cli/cli_args.h"

namespace impetus::cli {

/// Options both commands accept, beyond the common ones.
std::vector<OptionSpec> scene_run_option_specs();

/// Reads --steps/--threads/--every/--out into `options`; false with `error` on a bad value.
bool read_run_options(const ParsedArgs& args, RunOptions* options, std::string* error);

/// The scene-setting options (--solver) as an overrides object of engine/scene_overrides.h,
/// the one way scene values are overridden; false with `error` on a bad value.
bool read_scene_overrides(const ParsedArgs& args, nlohmann::json* overrides, std::string* error);

/// Loads SCENE with `overrides` applied; on failure prints the loader's error and returns nullopt.
std::optional<SceneDef> load_scene_or_report(const std::string& path,
                                             const nlohmann::json& overrides = nlohmann::json());

/// Runs with a progress bar on a terminal (unless --quiet). Prints nothing else.
RunOutcome run_with_progress(const SceneDef& scene, const RunOptions& options, bool quiet);

}  // namespace impetus::cli
