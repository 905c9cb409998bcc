#pragma once
// The checks of one batch run (tools/docs/batch-format.md, "checks"): status, golden
// summary.json (through engine/golden_check.h), and bounds on summary figures, bodies and
// cloths. Each check becomes one report entry with what was measured and what was expected.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/scene_runner.h"
#include "tools/cli/batch_manifest.h"

namespace impetus::cli {

struct CheckOutcome {
  nlohmann::ordered_json entry;  // {"check": NAME, "passed": ..., "measured": ..., ...}
  bool passed = true;
  std::string message;  // one line: "stats.max_penetration: 0.02 > max 0.01"
  std::string details;  // more lines (the golden comparison, the worst bodies); may be empty
};

/// Evaluates `checks` on a finished run: `final` from run_scene, `summary` = its summary.json.
/// With `update_golden` the golden is not compared (it is about to be rewritten); its entry
/// says "updated". Order: status, golden, stats, bodies, cloths, as in the manifest.
std::vector<CheckOutcome> evaluate_checks(const RunChecks& checks, const FinalStates& final,
                                          const nlohmann::json& summary, bool update_golden);

}  // namespace impetus::cli
