#pragma once
// What `impetus run` and `impetus view` write beside a run's results: DIR/shapes.json (from the
// scene), DIR/report.html and, on request, a .glb file (tools/viewer/).
#include <string>

#include "engine/world_def.h"

namespace impetus::cli {

struct ViewerRequest {
  std::string dir;            // the results folder
  const SceneDef* scene = nullptr;  // when set, DIR/shapes.json is (re)written from it first
  bool report = true;         // DIR/report.html
  std::string gltf;           // .glb path; empty = none
  /// A program built without the page's libraries cannot write report.html: an error for
  /// `view`, only a warning for `run` (whose results are complete without it).
  bool report_required = true;
};

/// Writes the requested files. Returns kExitOk, or kExitInvalid after printing one `error:` line
/// when the folder cannot be read or a file cannot be written. `report_written` tells whether
/// report.html was written (false when not requested).
int write_viewer_outputs(const ViewerRequest& request, bool* report_written);

}  // namespace impetus::cli
