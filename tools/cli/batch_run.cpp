#include "tools/cli/batch_run.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/scene_overrides.h"
#include "engine/scene_runner.h"
#include "tools/cli/batch_checks.h"
#include "tools/cli/viewer_outputs.h"

namespace impetus::cli {

namespace {

using Ordered = nlohmann::ordered_json;
namespace fs = std::filesystem;

Ordered entry_head(const BatchRun& run) {
  Ordered entry = Ordered::object();
  entry["id"] = run.id;
  entry["scene"] = run.scene;
  if (!run.parameters.is_null()) entry["parameters"] = Ordered::parse(run.parameters.dump());
  return entry;
}

void set_error(Ordered& entry, const std::string& status, const std::string& message) {
  entry["result"] = "error";
  entry["status"] = status;
  entry["error"] = message;
  entry["checks"] = Ordered::array();
  entry["failure"] = {{"type", "error"}, {"message", message}, {"details", ""}};
}

void set_tail(Ordered& entry, const std::string& output, int rank, double wall_seconds,
              double ms_per_step) {
  entry["output"] = output;
  entry["rank"] = rank;
  entry["timings"] = {{"wall_seconds", wall_seconds}, {"ms_per_step", ms_per_step}};
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

BatchRunResult execute_batch_run(const BatchRun& run, const BatchRunSettings& settings,
                                 const std::function<void(long long, long long)>& progress) {
  BatchRunResult result;
  Ordered& entry = result.entry;
  entry = entry_head(run);
  SceneLoadResult loaded = load_scene_file(run.scene_path, run.overrides, run.overrides_path);
  if (!loaded.ok()) {
    set_error(entry, "invalid", loaded.error);
    set_tail(entry, "", settings.rank, 0, 0);
    return result;
  }
  RunOptions options;
  options.scene_file = run.scene_path;
  options.out_dir = (fs::path(settings.out_dir) / run.id).string();
  // One engine thread per run: a batch is parallel across runs (results never depend on it).
  options.threads = 1;
  options.write_meshes = settings.write_meshes;
  options.progress = progress;
  RunOutcome outcome;
  try {
    outcome = run_scene(*loaded.scene, options);
  } catch (const std::exception& e) {
    // Out of memory and the like: this run's failure, not the batch's.
    set_error(entry, "error", run.scene_path + ": " + e.what());
    set_tail(entry, run.id, settings.rank, 0, 0);
    return result;
  }
  const double ms_per_step =
      outcome.final.steps > 0 ? 1000.0 * outcome.wall_seconds / static_cast<double>(outcome.final.steps) : 0.0;
  if (outcome.exit_code == 2) {
    // The world rejected the scene (nothing written) or DIR/<id>/ could not be written.
    set_error(entry, "invalid", outcome.error);
    set_tail(entry, "", settings.rank, outcome.wall_seconds, ms_per_step);
    return result;
  }
  if (settings.write_report) {
    // The run's own page, as `impetus run` writes it; the batch's index.html links it. A build
    // without the page's libraries only skips it.
    ViewerRequest viewer;
    viewer.dir = options.out_dir;
    viewer.scene = &*loaded.scene;
    viewer.report_required = false;
    bool written = false;
    write_viewer_outputs(viewer, &written);
  }
  const fs::path summary_path = fs::path(options.out_dir) / "summary.json";
  result.summary_text = read_file(summary_path);
  nlohmann::json summary = nlohmann::json::parse(result.summary_text, nullptr, false);
  if (summary.is_discarded()) {
    set_error(entry, outcome.final.status, summary_path.string() + ": cannot read back the summary");
    set_tail(entry, run.id, settings.rank, outcome.wall_seconds, ms_per_step);
    result.summary_text.clear();
    return result;
  }

  std::vector<CheckOutcome> checks =
      evaluate_checks(run.checks, outcome.final, summary, settings.update_goldens && run.checks.golden);
  bool passed = true;
  std::string message;
  std::string details;
  std::string failed_check;
  for (const CheckOutcome& c : checks) {
    if (c.passed) continue;
    if (passed) {
      message = c.message;
      failed_check = c.entry["check"].get<std::string>();
    }
    passed = false;
    details += c.message + "\n" + c.details;
  }
  entry["result"] = passed ? "passed" : "failed";
  entry["status"] = outcome.final.status;
  if (outcome.exit_code == 3) entry["error"] = outcome.error;
  entry["steps"] = outcome.final.steps;
  entry["state_hash"] = outcome.final.state_hash;
  Ordered list = Ordered::array();
  for (CheckOutcome& c : checks) list.push_back(std::move(c.entry));
  entry["checks"] = std::move(list);
  if (!passed) {
    if (outcome.exit_code == 3) details += "diverged: " + outcome.error + "\n";
    entry["failure"] = {{"type", "check"}, {"check", failed_check}, {"message", message},
                        {"details", details}};
  }
  set_tail(entry, run.id, settings.rank, outcome.wall_seconds, ms_per_step);
  return result;
}

Ordered missing_run_entry(const BatchRun& run, int rank, const std::string& status,
                          const std::string& why) {
  Ordered entry = entry_head(run);
  set_error(entry, status, why);
  set_tail(entry, "", rank, 0, 0);
  return entry;
}

}  // namespace impetus::cli
