// impetus-scene/1 → SceneDef (../shared/spec/scene-format.md). The document is read top-down by
// small functions that throw JsonError at the first problem; load_scene_json catches it and
// prefixes the file name, so every error reads "FILE: JSON.PATH: problem".
#include "engine/scene_loader.h"
#include "engine/scene_loader_json.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "engine/input_limits.h"
#include "engine/json_reader.h"
#include "engine/json_text.h"
#include "engine/scene_json.h"
#include "engine/shape_json.h"

namespace impetus {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "impetus-scene/1";
// Far beyond anything a run can step; keeps counts and products inside their integer types.
constexpr long long kMaxSteps = 1'000'000'000'000LL;

// ---- settings --------------------------------------------------------------------------------

void read_settings(const json& v, SceneDef& scene) {
  JsonObject obj(v, "settings",
                 {"gravity", "dt", "duration", "steps", "substeps", "auto_substeps", "threads", "ccd",
                  "seed", "solver", "solver_iterations", "sleep"});
  WorldDef& w = scene.world;
  if (const json* g = obj.find("gravity")) w.gravity = read_vec3(*g, obj.key_path("gravity"));
  w.dt = read_positive(obj.require("dt"), obj.key_path("dt"));

  const json* duration = obj.find("duration");
  const json* steps = obj.find("steps");
  if (duration != nullptr && steps != nullptr) {
    throw JsonError{"settings", "give exactly one of \"duration\" or \"steps\", not both"};
  }
  if (duration == nullptr && steps == nullptr) {
    throw JsonError{"settings", "missing \"duration\" or \"steps\" (give exactly one)"};
  }
  if (steps != nullptr) {
    scene.steps = read_integer(*steps, obj.key_path("steps"), 1, kMaxSteps);
  } else {
    double d = read_positive(*duration, obj.key_path("duration"));
    double n = std::round(d / w.dt);
    if (!(n >= 1)) {
      throw JsonError{obj.key_path("duration"), "duration " + format_number(d) + " s at dt " +
                                                    format_number(w.dt) + " s rounds to 0 steps"};
    }
    if (n > static_cast<double>(kMaxSteps)) {
      throw JsonError{obj.key_path("duration"), "duration / dt gives more than 10^12 steps"};
    }
    scene.steps = static_cast<long long>(n);
  }

  if (const json* s = obj.find("substeps")) {
    w.substeps =
        static_cast<int>(read_integer(*s, obj.key_path("substeps"), 1, limits::kMaxSubsteps));
  }
  if (const json* t = obj.find("threads")) {
    w.threads = static_cast<int>(read_integer(*t, obj.key_path("threads"), 0, limits::kMaxThreads));
  }
  if (const json* c = obj.find("ccd")) w.ccd = read_bool(*c, obj.key_path("ccd"));
  if (const json* c = obj.find("auto_substeps")) w.auto_substeps = read_bool(*c, obj.key_path("auto_substeps"));
  // Extension key: sleeping islands on/off (WorldDef::sleep, default true).
  if (const json* c = obj.find("sleep")) w.sleep = read_bool(*c, obj.key_path("sleep"));
  if (const json* s = obj.find("seed")) w.seed = read_uint64(*s, obj.key_path("seed"));
  if (const json* s = obj.find("solver")) {
    std::string solver = read_string(*s, obj.key_path("solver"));
    if (solver == "block") {
      w.solver = SolverType::Block;
    } else if (solver == "sequential_impulse") {
      w.solver = SolverType::SequentialImpulse;
    } else {
      throw JsonError{obj.key_path("solver"), "unknown solver \"" + solver +
                                                  "\" (expected block or sequential_impulse)"};
    }
  }
  if (const json* s = obj.find("solver_iterations")) {
    w.solver_iterations = static_cast<int>(
        read_integer(*s, obj.key_path("solver_iterations"), 1, limits::kMaxSolverIterations));
  }
}

// ---- materials -------------------------------------------------------------------------------

MaterialDef read_material(const json& v, const std::string& name, const std::string& path) {
  JsonObject obj(v, path, {"density", "friction", "restitution"});
  MaterialDef m;
  m.name = name;
  if (const json* d = obj.find("density")) m.density = read_positive(*d, obj.key_path("density"));
  if (const json* f = obj.find("friction")) {
    m.friction = read_non_negative(*f, obj.key_path("friction"));
  }
  if (const json* r = obj.find("restitution")) {
    m.restitution = read_number(*r, obj.key_path("restitution"));
    if (m.restitution < 0 || m.restitution > 1) {
      throw JsonError{obj.key_path("restitution"),
                      "must be in [0, 1], got " + format_number(m.restitution)};
    }
  }
  return m;
}

// materials[0] is "default" (the file's or the engine's); the others follow in key order.
void read_materials(const json* v, SceneDef& scene, std::map<std::string, int>& index_by_name) {
  std::vector<MaterialDef>& out = scene.world.materials;
  out.assign(1, MaterialDef{});
  index_by_name.clear();
  index_by_name["default"] = 0;
  if (v == nullptr) return;
  if (!v->is_object()) {
    throw JsonError{"materials", "must be an object (name → material), got " + describe_json(*v)};
  }
  for (auto it = v->begin(); it != v->end(); ++it) {
    const std::string path = json_key_path("materials", it.key());
    if (it.key().empty()) throw JsonError{"materials", "a material name must not be empty"};
    MaterialDef m = read_material(it.value(), it.key(), path);
    if (it.key() == "default") {
      out[0] = m;
    } else {
      index_by_name[it.key()] = static_cast<int>(out.size());
      out.push_back(m);
    }
  }
}

// ---- bodies ----------------------------------------------------------------------------------

struct BodyContext {
  const std::map<std::string, int>* materials;
  const std::string* base_dir;
  ShapeFileCache* cache;
};

// 64 bits of a filter: a JSON integer in [0, 2^64 − 1] (exact: the parser keeps integers as
// 64-bit integers, never as doubles), or a string "0x" + 1 to 16 hex digits for readers and
// writers whose JSON numbers are doubles (exact only below 2^53).
std::uint64_t read_filter_bits(const json& v, const std::string& path) {
  if (v.is_string()) {
    const std::string text = v.get<std::string>();
    const bool hex = text.size() > 2 && text.size() <= 18 && text[0] == '0' &&
                     (text[1] == 'x' || text[1] == 'X') &&
                     text.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
    if (!hex) {
      throw JsonError{path, "must be an integer in [0, 2^64 - 1] or a hex string \"0x...\" of 1 to "
                            "16 digits, got " + describe_json(v)};
    }
    return std::stoull(text.substr(2), nullptr, 16);
  }
  if (!v.is_number_integer()) {
    throw JsonError{path, "must be an integer in [0, 2^64 - 1] or a hex string \"0x...\", got " +
                              describe_json(v)};
  }
  return read_uint64(v, path);
}

// `filter` of a body (engine/filter.h): category and mask bits, group.
Filter read_filter(const json& v, const std::string& path) {
  JsonObject obj(v, path, {"category", "mask", "group"});
  Filter f;
  if (const json* c = obj.find("category")) f.category = read_filter_bits(*c, obj.key_path("category"));
  if (const json* m = obj.find("mask")) f.mask = read_filter_bits(*m, obj.key_path("mask"));
  if (const json* g = obj.find("group")) {
    f.group = static_cast<int>(read_integer(*g, obj.key_path("group"), std::numeric_limits<int>::min(),
                                            std::numeric_limits<int>::max()));
  }
  return f;
}

// A body object; `is_template` for an array's `body` (no name, no position).
BodyDef read_body(const json& v, const std::string& path, bool is_template,
                  const BodyContext& ctx) {
  if (is_template && v.is_object()) {
    for (const char* key : {"name", "position"}) {
      if (v.contains(key)) {
        throw JsonError{json_key_path(path, key),
                        std::string("not allowed in an array's body (") +
                            (key[0] == 'n' ? "names are generated as <name>_<i>_<j>_<k>)"
                                           : "positions come from origin, spacing and jitter)")};
      }
    }
  }
  JsonObject obj = is_template
                       ? JsonObject(v, path,
                                    {"motion", "shape", "orientation", "linear_velocity",
                                     "angular_velocity", "material", "mass", "filter", "is_sensor"})
                       : JsonObject(v, path,
                                    {"name", "motion", "shape", "position", "orientation",
                                     "linear_velocity", "angular_velocity", "material", "mass",
                                     "filter", "is_sensor"});
  BodyDef body;
  if (!is_template) {
    body.name = read_name(obj.require("name"), obj.key_path("name"));
    if (const json* p = obj.find("position")) body.position = read_vec3(*p, obj.key_path("position"));
  }
  if (const json* m = obj.find("motion")) {
    std::string motion = read_string(*m, obj.key_path("motion"));
    if (motion == "dynamic") {
      body.motion = MotionType::Dynamic;
    } else if (motion == "static") {
      body.motion = MotionType::Static;
    } else if (motion == "kinematic") {
      body.motion = MotionType::Kinematic;
    } else {
      throw JsonError{obj.key_path("motion"), "unknown motion \"" + motion +
                                                  "\" (expected dynamic, static or kinematic)"};
    }
  }
  body.shape = read_shape(obj.require("shape"), obj.key_path("shape"), *ctx.base_dir, ctx.cache);
  if (const json* q = obj.find("orientation")) {
    body.orientation = read_quaternion(*q, obj.key_path("orientation"));
  }
  if (const json* lv = obj.find("linear_velocity")) {
    body.linear_velocity = read_vec3(*lv, obj.key_path("linear_velocity"));
  }
  if (const json* av = obj.find("angular_velocity")) {
    body.angular_velocity = read_vec3(*av, obj.key_path("angular_velocity"));
  }
  if (const json* m = obj.find("material")) {
    std::string name = read_name(*m, obj.key_path("material"));
    auto it = ctx.materials->find(name);
    if (it == ctx.materials->end()) {
      std::string known;
      for (const auto& [n, i] : *ctx.materials) known += (known.empty() ? "" : ", ") + n;
      throw JsonError{obj.key_path("material"),
                      "unknown material \"" + name + "\" (defined: " + known + ")"};
    }
    body.material = it->second;
  }
  if (const json* mass = obj.find("mass")) body.mass = read_positive(*mass, obj.key_path("mass"));
  // Extension keys: collision filtering and sensors (issue 15).
  if (const json* f = obj.find("filter")) body.filter = read_filter(*f, obj.key_path("filter"));
  if (const json* s = obj.find("is_sensor")) body.is_sensor = read_bool(*s, obj.key_path("is_sensor"));

  if (body.shape.type == ShapeType::Plane && body.motion != MotionType::Static) {
    throw JsonError{obj.key_path("motion"),
                    "a plane may only be static (add \"motion\": \"static\")"};
  }
  if (body.shape.type == ShapeType::Mesh && body.motion == MotionType::Dynamic &&
      !body.shape.mesh->is_closed()) {
    throw JsonError{obj.key_path("shape"),
                    "a dynamic mesh must be closed (every edge shared by exactly two triangles "
                    "of opposite orientation); use a convex shape or make the body static"};
  }
  return body;
}

// Registers a body name, rejecting "world" and duplicates; `origin` says where it came from.
void add_body_name(const std::string& name, const std::string& path, const std::string& origin,
                   int index, std::map<std::string, int>& index_by_name,
                   std::map<std::string, std::string>& origin_by_name) {
  if (name == kWorldBodyName) {
    throw JsonError{path, "\"world\" is reserved (it names the fixed world frame in joints)"};
  }
  auto [it, inserted] = index_by_name.emplace(name, index);
  if (!inserted) {
    throw JsonError{path, "duplicate body name \"" + name + "\" (already used by " +
                              origin_by_name[name] + ")"};
  }
  origin_by_name[name] = origin;
}

// SplitMix64 (scene-format.md, `arrays`): one generator for all arrays, three draws per body.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    state += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

void read_array(const json& v, const std::string& path, const BodyContext& ctx,
                SplitMix64& rng, SceneDef& scene, std::map<std::string, int>& index_by_name,
                std::map<std::string, std::string>& origin_by_name) {
  JsonObject obj(v, path, {"name", "count", "spacing", "origin", "jitter", "body"});
  const std::string name = read_name(obj.require("name"), obj.key_path("name"));
  const std::string count_path = obj.key_path("count");
  const json& count_json = obj.require("count");
  check_array(count_json, count_path, 3);
  long long count[3];
  for (int a = 0; a < 3; ++a) {
    count[a] = read_integer(count_json[a], json_index_path(count_path, a), 1, limits::kMaxBodies);
  }
  // Each factor is <= kMaxBodies, so neither product overflows; checked before any body is made.
  const long long room = limits::kMaxBodies - static_cast<long long>(scene.bodies.size());
  if (count[0] * count[1] > room || count[0] * count[1] * count[2] > room) {
    throw JsonError{count_path, "the scene would have more than " +
                                    std::to_string(limits::kMaxBodies) + " bodies (the limit)"};
  }
  Vec3 spacing = read_vec3(obj.require("spacing"), obj.key_path("spacing"));
  Vec3 origin = Vec3::Zero();
  if (const json* o = obj.find("origin")) origin = read_vec3(*o, obj.key_path("origin"));
  double jitter = 0;
  if (const json* j = obj.find("jitter")) jitter = read_non_negative(*j, obj.key_path("jitter"));
  // The template is read once: its hull or mesh is shared by every copy.
  BodyDef proto = read_body(obj.require("body"), obj.key_path("body"), true, ctx);

  scene.bodies.reserve(scene.bodies.size() + static_cast<std::size_t>(count[0] * count[1] * count[2]));
  for (long long i = 0; i < count[0]; ++i) {
    for (long long j = 0; j < count[1]; ++j) {
      for (long long k = 0; k < count[2]; ++k) {
        BodyDef body = proto;
        body.name = name + "_" + std::to_string(i) + "_" + std::to_string(j) + "_" +
                    std::to_string(k);
        const long long ijk[3] = {i, j, k};
        for (int a = 0; a < 3; ++a) {
          // Drawn even when jitter is 0, so that one array's jitter never shifts another's.
          double offset = (2.0 * rng.uniform() - 1.0) * jitter;
          body.position[a] = origin[a] + static_cast<double>(ijk[a]) * spacing[a] + offset;
        }
        const int index = static_cast<int>(scene.bodies.size());
        add_body_name(body.name, obj.key_path("name"), path + " (" + body.name + ")", index,
                      index_by_name, origin_by_name);
        scene.bodies.push_back(std::move(body));
      }
    }
  }
}

// ---- the document ----------------------------------------------------------------------------

const json* find_array(const JsonObject& root, const char* key) {
  const json* v = root.find(key);
  if (v != nullptr) check_array(*v, key, -1);
  return v;
}

SceneDef read_scene(const json& doc, const std::string& file, const std::string& base_dir) {
  require_format(doc, kFormat, "scene");
  // "$schema" (extension): where an editor finds the JSON Schema; the loader only checks its type.
  JsonObject root(doc, "",
                  {"$schema", "format", "name", "description", "settings", "materials", "bodies",
                   "arrays", "joints", "cloths", "output"});
  if (const json* s = root.find("$schema")) read_string(*s, "$schema");
  SceneDef scene;
  // A scene's run writes no contact events (world_def.h): its steps don't track them.
  scene.world.contact_events = false;
  if (const json* n = root.find("name")) {
    scene.name = read_string(*n, "name");
  } else {
    scene.name = std::filesystem::path(file).stem().string();
  }
  if (const json* d = root.find("description")) scene.description = read_string(*d, "description");
  read_settings(root.require("settings"), scene);

  std::map<std::string, int> material_index;
  read_materials(root.find("materials"), scene, material_index);

  ShapeFileCache cache;
  BodyContext ctx{&material_index, &base_dir, &cache};
  std::map<std::string, int> body_index;
  std::map<std::string, std::string> body_origin;
  if (const json* bodies = find_array(root, "bodies")) {
    if (bodies->size() > static_cast<std::size_t>(limits::kMaxBodies)) {
      throw JsonError{"bodies", "more than " + std::to_string(limits::kMaxBodies) +
                                    " bodies (the limit)"};
    }
    for (std::size_t b = 0; b < bodies->size(); ++b) {
      const std::string path = json_index_path("bodies", b);
      BodyDef body = read_body((*bodies)[b], path, false, ctx);
      add_body_name(body.name, json_key_path(path, "name"), path,
                    static_cast<int>(scene.bodies.size()), body_index, body_origin);
      scene.bodies.push_back(std::move(body));
    }
  }
  if (const json* arrays = find_array(root, "arrays")) {
    SplitMix64 rng{scene.world.seed};
    for (std::size_t a = 0; a < arrays->size(); ++a) {
      read_array((*arrays)[a], json_index_path("arrays", a), ctx, rng, scene, body_index,
                 body_origin);
    }
  }

  SceneBodies lookup{&scene.bodies, body_index};
  if (const json* joints = find_array(root, "joints")) {
    for (std::size_t j = 0; j < joints->size(); ++j) {
      scene.joints.push_back(read_joint((*joints)[j], json_index_path("joints", j), lookup));
    }
  }
  if (const json* cloths = find_array(root, "cloths")) {
    std::set<std::string> names;
    long long vertex_room = limits::kMaxClothVertices;
    for (std::size_t c = 0; c < cloths->size(); ++c) {
      const std::string path = json_index_path("cloths", c);
      SceneClothDef cloth = read_cloth((*cloths)[c], path, lookup, base_dir, &vertex_room);
      if (!names.insert(cloth.name).second) {
        throw JsonError{json_key_path(path, "name"), "duplicate cloth name \"" + cloth.name + "\""};
      }
      scene.cloths.push_back(std::move(cloth));
    }
  }
  if (const json* output = root.find("output")) {
    JsonObject obj(*output, "output", {"every"});
    if (const json* every = obj.find("every")) {
      scene.output_every = static_cast<int>(
          read_integer(*every, "output.every", 1, std::numeric_limits<int>::max()));
    }
  }
  return scene;
}

}  // namespace

SceneLoadResult load_scene_json(const json& doc, const std::string& file,
                                const std::string& base_dir) {
  SceneLoadResult result;
  try {
    result.scene = read_scene(doc, file, base_dir);
  } catch (const JsonError& e) {
    result.error = file + ": " + e.message();
  } catch (const std::exception& e) {
    // Not expected (every access is checked first), but nothing may escape the loader.
    result.error = file + ": " + e.what();
  }
  return result;
}

SceneLoadResult load_scene_text(const std::string& text, const std::string& file,
                                const std::string& base_dir) {
  std::string error;
  std::optional<json> doc = parse_json_text(text, &error);
  if (!doc) {
    SceneLoadResult result;
    result.error = file + ": " + error;
    return result;
  }
  return load_scene_json(*doc, file, base_dir);
}

SceneLoadResult load_scene_file(const std::string& path) {
  SceneLoadResult result;
  std::optional<json> doc = read_json_file(path, "scene file", &result.error);
  if (!doc) return result;
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  return load_scene_json(*doc, path, base_dir);
}

}  // namespace impetus
