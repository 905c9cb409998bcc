// `impetus view DIR`: write DIR/report.html (and optionally a .glb) for an existing results
// folder and print the report's file:// URL.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "tools/cli/commands.h"
#include "tools/cli/scene_command.h"
#include "tools/cli/viewer_outputs.h"
#include "tools/viewer/report_writer.h"

namespace impetus::cli {

int command_view(const std::vector<std::string>& args) {
  std::string error;
  std::optional<ParsedArgs> parsed = parse_args(
      "view", args, {{"--scene", true, ""}, {"--gltf", true, ""}, {"--no-report", false, ""}},
      &error);
  if (!parsed) {
    print_error(error);
    return kExitInvalid;
  }
  if (parsed->has("--help")) {
    std::fputs(command_help("view").c_str(), stdout);
    return kExitOk;
  }
  if (!setup_logging(*parsed, &error)) {
    print_error("view: " + error);
    return kExitInvalid;
  }
  if (parsed->positionals.size() != 1) {
    print_error(parsed->positionals.empty()
                    ? "view: missing DIR (see 'impetus view --help')"
                    : "view: unexpected argument '" + parsed->positionals[1] + "'");
    return kExitInvalid;
  }
  ViewerRequest request;
  request.dir = parsed->positionals.front();
  request.report = !parsed->has("--no-report");
  request.gltf = parsed->get("--gltf").value_or("");
  if (parsed->has("--gltf") && request.gltf.empty()) {
    print_error("view: --gltf: must name a file");
    return kExitInvalid;
  }
  std::optional<SceneDef> scene;
  if (std::optional<std::string> scene_path = parsed->get("--scene")) {
    scene = load_scene_or_report(*scene_path);
    if (!scene) return kExitInvalid;
    request.scene = &*scene;
  }
  bool report_written = false;
  const int status = write_viewer_outputs(request, &report_written);
  if (status == kExitOk && report_written) std::puts(viewer::report_url(request.dir).c_str());
  return status;
}

}  // namespace impetus::cli
