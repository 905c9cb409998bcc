#include "tools/cli/viewer_outputs.h"

#include "collision/base/log.h"
#include "tools/cli/cli_args.h"
#include "tools/viewer/gltf_writer.h"
#include "tools/viewer/report_writer.h"
#include "tools/viewer/run_results.h"
#include "tools/viewer/scene_shapes.h"
#include "tools/viewer/viewer_assets.h"

namespace impetus::cli {

int write_viewer_outputs(const ViewerRequest& request, bool* report_written) {
  *report_written = false;
  std::string error;
  if (request.scene && !viewer::write_scene_shapes(*request.scene, request.dir, &error)) {
    print_error(error);
    return kExitInvalid;
  }
  bool report = request.report;
  if (report && !viewer::viewer_assets_missing().empty() && !request.report_required) {
    logger()->warn("report.html not written: {}", viewer::viewer_assets_missing());
    report = false;
  }
  if (!report && request.gltf.empty()) return kExitOk;
  viewer::RunResults results;
  if (!viewer::read_run_results(request.dir, &results, &error)) {
    print_error(error);
    return kExitInvalid;
  }
  if (report) {
    if (!viewer::write_report(results, request.dir, &error)) {
      print_error(error);
      return kExitInvalid;
    }
    *report_written = true;
  }
  if (!request.gltf.empty()) {
    if (!viewer::write_gltf(results, request.gltf, "impetus " IMPETUS_VERSION, &error)) {
      print_error(error);
      return kExitInvalid;
    }
    logger()->info("glTF written to {}", request.gltf);
  }
  return kExitOk;
}

}  // namespace impetus::cli
