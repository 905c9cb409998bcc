// `impetus query FILE|-`: geometric queries (../shared/spec/query-format.md) answered with the
// simulator's own code, one JSON document on stdout. `distance` is answered through
// collision/distance.h; the other query types get a per-slot error until their APIs exist.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collision/distance.h"
#include "engine/scene_loader.h"
#include "tools/cli/commands.h"
#include "tools/cli/scene_command.h"

namespace impetus::cli {

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Query types of the spec that are recognised but not answered yet.
const std::set<std::string> kPendingTypes = {"closest_approach", "mcd", "plane_toi",
                                             "phong_distance"};

// A failed query: the JSON path of the problem and what is wrong.
struct QueryError {
  std::string message;  // "queries[2].a.position: must be an array of 3 finite numbers"
};

struct QueryObject {
  Shape shape;
  Pose pose;
};

void check_keys(const Json& object, const std::string& path, const std::set<std::string>& allowed) {
  for (const auto& [key, value] : object.items()) {
    if (!allowed.count(key)) throw QueryError{path + "." + key + ": unknown key"};
  }
}

std::vector<double> read_finite_array(const Json& value, const std::string& path, int size) {
  bool ok = value.is_array() && static_cast<int>(value.size()) == size;
  std::vector<double> numbers;
  if (ok) {
    for (const Json& item : value) {
      if (!item.is_number() || !std::isfinite(item.get<double>())) {
        ok = false;
        break;
      }
      numbers.push_back(item.get<double>());
    }
  }
  if (!ok) {
    throw QueryError{path + ": must be an array of " + std::to_string(size) +
                     " finite numbers, got " + value.dump()};
  }
  return numbers;
}

Vec3 read_vec3(const Json& value, const std::string& path) {
  std::vector<double> v = read_finite_array(value, path, 3);
  return Vec3(v[0], v[1], v[2]);
}

Quat read_quaternion(const Json& value, const std::string& path) {
  std::vector<double> v = read_finite_array(value, path, 4);
  Quat q(v[0], v[1], v[2], v[3]);
  const double norm = q.norm();
  if (!(norm > 1e-12) || !std::isfinite(norm)) {
    throw QueryError{path + ": must be a non-zero quaternion [w, x, y, z]"};
  }
  q.coeffs() /= norm;
  return q;
}

// An object of query-format.md: shape and pose (velocities are accepted, and ignored by the
// static queries).
QueryObject read_object(const Json& query, const std::string& query_path, const char* key,
                        const std::string& base_dir) {
  const std::string path = query_path + "." + key;
  auto it = query.find(key);
  if (it == query.end()) throw QueryError{query_path + ": missing key '" + key + "'"};
  const Json& object = *it;
  if (!object.is_object()) throw QueryError{path + ": must be an object"};
  check_keys(object, path,
             {"shape", "position", "orientation", "linear_velocity", "angular_velocity"});
  auto shape_json = object.find("shape");
  if (shape_json == object.end()) throw QueryError{path + ": missing key 'shape'"};
  std::string shape_error;
  std::optional<Shape> shape =
      parse_shape_json(*shape_json, path + ".shape", base_dir, &shape_error);
  if (!shape) throw QueryError{shape_error};
  QueryObject result{*shape, Pose{}};
  if (auto p = object.find("position"); p != object.end()) {
    result.pose.position = read_vec3(*p, path + ".position");
  }
  if (auto q = object.find("orientation"); q != object.end()) {
    result.pose.orientation = read_quaternion(*q, path + ".orientation");
  }
  for (const char* velocity : {"linear_velocity", "angular_velocity"}) {
    if (auto v = object.find(velocity); v != object.end()) {
      read_vec3(*v, path + "." + velocity);
    }
  }
  return result;
}

OrderedJson vec3_json(const Vec3& v) { return OrderedJson::array({v.x(), v.y(), v.z()}); }

OrderedJson answer_distance(const Json& query, const std::string& path,
                            const std::string& base_dir) {
  check_keys(query, path, {"id", "type", "a", "b"});
  QueryObject a = read_object(query, path, "a", base_dir);
  QueryObject b = read_object(query, path, "b", base_dir);
  std::string error;
  std::optional<DistanceResult> d = signed_distance(a.shape, a.pose, b.shape, b.pose, &error);
  if (!d) throw QueryError{path + ": " + (error.empty() ? "no distance for these shapes" : error)};
  OrderedJson result = OrderedJson::object();
  result["distance"] = d->distance;
  result["point_a"] = vec3_json(d->point_a);
  result["point_b"] = vec3_json(d->point_b);
  result["normal"] = vec3_json(d->normal);
  return result;
}

// One slot of the results: {"id": ..., fields...} or {"id": ..., "error": "..."}.
OrderedJson answer_query(const Json& query, std::size_t index, const std::string& base_dir,
                         std::string* error) {
  const std::string path = "queries[" + std::to_string(index) + "]";
  OrderedJson slot = OrderedJson::object();
  slot["id"] = nullptr;
  try {
    if (!query.is_object()) throw QueryError{path + ": must be an object"};
    auto id = query.find("id");
    if (id != query.end()) {
      if (!id->is_string() && !id->is_number()) {
        throw QueryError{path + ".id: must be a string or a number"};
      }
      slot["id"] = OrderedJson::parse(id->dump());
    } else {
      throw QueryError{path + ": missing key 'id'"};
    }
    auto type = query.find("type");
    if (type == query.end()) throw QueryError{path + ": missing key 'type'"};
    if (!type->is_string()) throw QueryError{path + ".type: must be a string"};
    const std::string name = type->get<std::string>();
    if (name == "distance") {
      OrderedJson fields = answer_distance(query, path, base_dir);
      for (auto& [key, value] : fields.items()) slot[key] = value;
    } else if (kPendingTypes.count(name)) {
      throw QueryError{path + ".type: query type '" + name + "' is not implemented yet"};
    } else {
      throw QueryError{path + ".type: unknown query type '" + name +
                       "' (closest_approach, distance, mcd, plane_toi, phong_distance)"};
    }
  } catch (const QueryError& e) {
    *error = e.message;
    slot["error"] = e.message;
  }
  return slot;
}

// Reads FILE or stdin; false with `error` set.
bool read_input(const std::string& file, std::string* text, std::string* error) {
  if (file == "-") {
    text->assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    *error = file + ": cannot open file";
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *text = buffer.str();
  return true;
}

}  // namespace

int command_query(const std::vector<std::string>& args) {
  std::string error;
  std::optional<ParsedArgs> parsed = parse_args("query", args, {}, &error);
  if (!parsed) {
    print_error(error);
    return kExitInvalid;
  }
  if (parsed->has("--help")) {
    std::fputs(command_help("query").c_str(), stdout);
    return kExitOk;
  }
  if (!setup_logging(*parsed, &error)) {
    print_error("query: " + error);
    return kExitInvalid;
  }
  if (parsed->positionals.size() != 1) {
    print_error(parsed->positionals.empty()
                    ? "query: missing FILE or - (see 'impetus query --help')"
                    : "query: unexpected argument '" + parsed->positionals[1] + "'");
    return kExitInvalid;
  }
  const std::string& file = parsed->positionals.front();
  const std::string label = file == "-" ? "<stdin>" : file;
  // Relative OBJ paths in shapes resolve against the query file's folder (stdin: the cwd).
  const std::string base_dir =
      file == "-" ? std::string(".") : std::filesystem::path(file).parent_path().string();

  std::string text;
  if (!read_input(file, &text, &error)) {
    print_error(error);
    return kExitInvalid;
  }
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    print_error(label + ": invalid JSON: " + what.substr(what.find(' ') + 1));
    return kExitInvalid;
  }
  if (!doc.is_object()) {
    print_error(label + ": (root): must be an object");
    return kExitInvalid;
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "format" && key != "queries") {
      print_error(label + ": " + key + ": unknown key");
      return kExitInvalid;
    }
  }
  auto format = doc.find("format");
  if (format == doc.end() || *format != "impetus-query/1") {
    print_error(label + ": format: must be \"impetus-query/1\"");
    return kExitInvalid;
  }
  auto queries = doc.find("queries");
  if (queries == doc.end() || !queries->is_array()) {
    print_error(label + ": queries: must be an array");
    return kExitInvalid;
  }

  // Each result on its own line: readable, and still one JSON document.
  bool any_error = false;
  std::string out = "{\"format\": \"impetus-query-result/1\", \"results\": [";
  for (std::size_t i = 0; i < queries->size(); ++i) {
    std::string slot_error;
    OrderedJson slot = answer_query((*queries)[i], i, base_dir, &slot_error);
    if (!slot_error.empty()) {
      any_error = true;
      print_error(label + ": " + slot_error);
    }
    out += (i == 0 ? "\n  " : ",\n  ") + slot.dump();
  }
  out += queries->empty() ? "]}\n" : "\n]}\n";
  std::fputs(out.c_str(), stdout);
  return any_error ? kExitInvalid : kExitOk;
}

}  // namespace impetus::cli
