#pragma once
// impetus-batch/1 manifests (tools/docs/batch-format.md): parsing, validation and the expansion
// of sweeps into runs. Every rank of an MPI batch parses the same file and gets the same list, so
// that runs travel between ranks as indices.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace impetus::cli {

/// A bound on a measured figure: a number, or per component for vectors (null = unbounded).
struct Bound {
  nlohmann::json min;  // null, a number or an array of numbers/nulls
  nlohmann::json max;
};

/// One bounded quantity of a named body or cloth ("*" = every one).
struct NamedBound {
  std::string name;
  std::string quantity;  // position, speed, ... / self_intersections, bbox_min, ...
  Bound bound;
};

struct GoldenCheck {
  std::string file;  // as written in the manifest
  std::string path;  // resolved against the manifest's folder
  double tolerance = 1e-6;
  bool exact = false;
};

/// The `checks` of a run.
struct RunChecks {
  std::string status = "ok";  // ok | diverged | any
  std::optional<GoldenCheck> golden;
  std::vector<std::pair<std::string, Bound>> stats;  // summary.json stats key → bound
  std::vector<NamedBound> bodies;
  std::vector<NamedBound> cloths;
};

struct BatchRun {
  std::string id;
  std::string scene;       // as written in the manifest
  std::string scene_path;  // resolved against the manifest's folder
  nlohmann::json overrides = nlohmann::json::object();  // checked, see engine/scene_overrides.h
  std::string overrides_path;  // JSON path of the overrides in the manifest, for messages
  RunChecks checks;
  std::optional<double> cost;  // relative cost from the manifest (seconds, roughly)
  nlohmann::json parameters;   // a sweep's values for this run (object), null for a plain run
};

struct BatchManifest {
  std::string file;      // as given
  std::string name;      // `name`, or the file name without .json / .batch.json
  std::vector<BatchRun> runs;  // runs first, then each sweep's expansion, in manifest order
};

/// Reads and validates MANIFEST. On failure returns nullopt and sets `error` to
/// "FILE: JSON.PATH: problem" (without "error: ").
std::optional<BatchManifest> load_batch_manifest(const std::string& file, std::string* error);

/// The same for a manifest already in memory: `text` as if read from `file` (relative scene and
/// golden paths resolve against the folder of `file`; the file itself is not read). Used by the
/// batch-manifest fuzz target.
std::optional<BatchManifest> parse_batch_manifest(const std::string& text, const std::string& file,
                                                  std::string* error);

/// Whether `id` is a valid run id: letters, digits and . _ = + - (not starting with . or -),
/// at most 200 characters. Ids name folders, so nothing else is allowed.
bool valid_run_id(const std::string& id);

}  // namespace impetus::cli
