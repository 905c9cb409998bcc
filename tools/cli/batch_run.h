#pragma once
// One run of a batch: load the scene with the run's overrides, step it into OUT/<run-id>/
// (engine/scene_runner.h, the files of `impetus run`), evaluate its checks, and describe it as a
// report entry. Never throws for bad scenes or failed runs: they become the entry's result.
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "tools/cli/batch_manifest.h"

namespace impetus::cli {

struct BatchRunSettings {
  std::string out_dir;          // the batch's DIR; the run writes DIR/<id>/
  bool write_meshes = true;
  bool write_report = true;     // DIR/<id>/report.html (tools/viewer/), as `impetus run` writes
  bool update_goldens = false;  // golden checks are not compared (the goldens get rewritten)
  int rank = 0;                 // MPI rank that ran it (0 without MPI)
};

struct BatchRunResult {
  /// The report entry (batch-format.md "report.json"): id, scene, result, status, steps,
  /// state_hash, checks, failure, output, rank, timings. Only `rank` and `timings` depend on
  /// where and how fast it ran.
  nlohmann::ordered_json entry;
  /// The summary.json the run wrote (for --update-goldens); empty when the run did not finish.
  std::string summary_text;
};

/// Runs `run` on the calling thread (one engine thread). `progress` (may be empty) gets
/// (steps done, total steps) after every step.
BatchRunResult execute_batch_run(const BatchRun& run, const BatchRunSettings& settings,
                                 const std::function<void(long long, long long)>& progress);

/// An entry for a run without a result: result "error" with `status` "lost" (its MPI rank died)
/// or "unfinished" (in the reports written while the batch is still going).
nlohmann::ordered_json missing_run_entry(const BatchRun& run, int rank, const std::string& status,
                                         const std::string& why);

}  // namespace impetus::cli
