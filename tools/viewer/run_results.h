#pragma once
// A results folder read back (tools/docs/output-format.md): summary.json, trajectory.jsonl,
// shapes.json and the cloth OBJ frames. The report and the glTF export are written from this,
// so `impetus view DIR` gives the same files as `impetus run` did.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace impetus::viewer {

struct RunResults {
  nlohmann::json summary;              // summary.json
  nlohmann::json shapes;               // shapes.json
  std::vector<nlohmann::json> frames;  // trajectory.jsonl, one object per frame, in file order
  /// cloth_frames[c][f]: cloth c's (shapes.json order) vertex positions x, y, z, … at frame f,
  /// from DIR/cloth/<name>_<step>.obj; empty where that file is missing (--no-meshes).
  std::vector<std::vector<std::vector<float>>> cloth_frames;
};

/// Reads DIR; false with `error` ("PATH: problem" or "PATH:LINE: problem") when a required file
/// is missing or malformed.
bool read_run_results(const std::string& dir, RunResults* results, std::string* error);

}  // namespace impetus::viewer
