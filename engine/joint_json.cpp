// `joints` entries of impetus-scene/1: type, bodies [a, b] (b may be "world"), anchor (default
// b's origin), axis (hinge, slider), limits [lo, hi] (hinge, slider).
#include <limits>

#include "engine/json_reader.h"
#include "engine/scene_json.h"

namespace impetus {

using nlohmann::json;

int SceneBodies::lookup(const json& v, const std::string& path, bool allow_world) const {
  std::string name = read_name(v, path);
  if (name == kWorldBodyName) {
    if (allow_world) return -1;
    throw JsonError{path, "\"world\" is not allowed here (only as a joint's second body)"};
  }
  auto it = index_by_name.find(name);
  if (it == index_by_name.end()) throw JsonError{path, "unknown body name \"" + name + "\""};
  return it->second;
}

SceneJointDef read_joint(const json& v, const std::string& path, const SceneBodies& bodies) {
  if (!v.is_object()) throw JsonError{path, "must be a joint object, got " + describe_json(v)};
  const std::string type_path = json_key_path(path, "type");
  auto type_it = v.find("type");
  if (type_it == v.end()) {
    throw JsonError{type_path, "missing required key (one of ball, hinge, fixed, slider)"};
  }
  const std::string type = read_string(*type_it, type_path);

  SceneJointDef joint;
  bool has_axis = false;
  if (type == "ball") {
    joint.type = JointType::Ball;
  } else if (type == "fixed") {
    joint.type = JointType::Fixed;
  } else if (type == "hinge") {
    joint.type = JointType::Hinge;
    has_axis = true;
  } else if (type == "slider") {
    joint.type = JointType::Slider;
    has_axis = true;
  } else {
    throw JsonError{type_path, "unknown joint type \"" + type +
                                   "\" (expected ball, hinge, fixed or slider)"};
  }
  // `axis` and `limits` only mean something for hinge and slider: elsewhere they are unknown
  // keys, so that a misplaced limit is reported rather than ignored.
  JsonObject obj = has_axis ? JsonObject(v, path, {"type", "bodies", "anchor", "axis", "limits"})
                            : JsonObject(v, path, {"type", "bodies", "anchor"});

  const std::string bodies_path = obj.key_path("bodies");
  const json& pair = obj.require("bodies");
  check_array(pair, bodies_path, 2);
  joint.body_a = bodies.lookup(pair[0], json_index_path(bodies_path, 0), false);
  joint.body_b = bodies.lookup(pair[1], json_index_path(bodies_path, 1), true);
  if (joint.body_a == joint.body_b) {
    throw JsonError{bodies_path, "a joint needs two different bodies"};
  }
  const std::vector<BodyDef>& defs = *bodies.bodies;
  bool a_dynamic = defs[joint.body_a].motion == MotionType::Dynamic;
  bool b_dynamic = joint.body_b >= 0 && defs[joint.body_b].motion == MotionType::Dynamic;
  if (!a_dynamic && !b_dynamic) {
    throw JsonError{bodies_path, "at least one of the two bodies must be dynamic"};
  }

  if (const json* anchor = obj.find("anchor")) {
    joint.anchor = read_vec3(*anchor, obj.key_path("anchor"));
  } else {
    joint.anchor = joint.body_b >= 0 ? defs[joint.body_b].position : Vec3::Zero();
  }

  if (has_axis) {
    joint.axis = read_direction(obj.require("axis"), obj.key_path("axis"));
    if (const json* limits = obj.find("limits")) {
      const std::string limits_path = obj.key_path("limits");
      check_array(*limits, limits_path, 2);
      double lo = read_number((*limits)[0], json_index_path(limits_path, 0));
      double hi = read_number((*limits)[1], json_index_path(limits_path, 1));
      if (lo > hi) {
        throw JsonError{limits_path, "lower limit " + format_number(lo) +
                                         " exceeds upper limit " + format_number(hi)};
      }
      joint.limits = std::array<double, 2>{lo, hi};
    }
  }
  return joint;
}

}  // namespace impetus
