// `impetus validate SCENE`: load and check a scene, print one line of counts.
#include <cstdio>
#include <string>
#include <vector>

#include "tools/cli/commands.h"
#include "tools/cli/scene_command.h"

namespace impetus::cli {

int command_validate(const std::vector<std::string>& args) {
  std::string error;
  std::optional<ParsedArgs> parsed = parse_args("validate", args, {}, &error);
  if (!parsed) {
    print_error(error);
    return kExitInvalid;
  }
  if (parsed->has("--help")) {
    std::fputs(command_help("validate").c_str(), stdout);
    return kExitOk;
  }
  if (!setup_logging(*parsed, &error)) {
    print_error("validate: " + error);
    return kExitInvalid;
  }
  if (parsed->positionals.size() != 1) {
    print_error(parsed->positionals.empty()
                    ? "validate: missing SCENE (see 'impetus validate --help')"
                    : "validate: unexpected argument '" + parsed->positionals[1] + "'");
    return kExitInvalid;
  }
  const std::string& path = parsed->positionals.front();
  std::optional<SceneDef> scene = load_scene_or_report(path);
  if (!scene) return kExitInvalid;

  int counts[3] = {0, 0, 0};  // static, kinematic, dynamic
  for (const BodyDef& body : scene->bodies) {
    if (body.motion == MotionType::Static) ++counts[0];
    if (body.motion == MotionType::Kinematic) ++counts[1];
    if (body.motion == MotionType::Dynamic) ++counts[2];
  }
  std::printf(
      "%s: ok: scene '%s': %zu bodies (%d dynamic, %d kinematic, %d static), %zu joints, "
      "%zu cloths, %lld steps of %g s\n",
      path.c_str(), scene->name.c_str(), scene->bodies.size(), counts[2], counts[1], counts[0],
      scene->joints.size(), scene->cloths.size(), scene->steps, scene->world.dt);
  return kExitOk;
}

}  // namespace impetus::cli
