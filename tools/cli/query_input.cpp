// Reading one query of `impetus query`: see query_input.h.
#include "tools/cli/query_input.h"

#include <cmath>
#include <string>

#include "engine/scene_loader.h"
#include "engine/scene_loader_json.h"

namespace impetus::cli {

void check_keys(const Json& object, const std::string& path, const std::set<std::string>& allowed) {
  for (const auto& [key, value] : object.items()) {
    if (!allowed.count(key)) throw QueryError{path + "." + key + ": unknown key"};
  }
}

const Json& require_key(const Json& query, const std::string& path, const char* key) {
  auto it = query.find(key);
  if (it == query.end()) throw QueryError{path + ": missing key '" + key + "'"};
  return *it;
}

double read_finite(const Json& value, const std::string& path) {
  if (!value.is_number() || !std::isfinite(value.get<double>())) {
    throw QueryError{path + ": must be a finite number, got " + value.dump()};
  }
  return value.get<double>();
}

double read_positive(const Json& value, const std::string& path) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || !(value.get<double>() > 0)) {
    throw QueryError{path + ": must be a positive finite number, got " + value.dump()};
  }
  return value.get<double>();
}

long long read_integer(const Json& value, const std::string& path, long long min, long long max) {
  // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "[" + std::string.
  std::string range(1, '[');
  range.append(std::to_string(min)).append(", ").append(std::to_string(max)).push_back(']');
  bool ok = false;
  long long n = 0;
  if (value.is_number_unsigned()) {
    const auto u = value.get<unsigned long long>();
    ok = u <= static_cast<unsigned long long>(max);
    n = ok ? static_cast<long long>(u) : 0;
  } else if (value.is_number_integer()) {
    n = value.get<long long>();
    ok = true;
  }
  if (!ok || n < min || n > max) {
    throw QueryError{path + ": must be an integer in " + range + ", got " + value.dump()};
  }
  return n;
}

namespace {

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

}  // namespace

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

void read_interval(const Json& value, const std::string& path, double* t0, double* t1) {
  std::vector<double> v = read_finite_array(value, path, 2);
  if (!(v[0] <= v[1])) {
    throw QueryError{path + ": must be [t0, t1] with t0 <= t1, got " + value.dump()};
  }
  *t0 = v[0];
  *t1 = v[1];
}

std::string read_choice(const Json& value, const std::string& path,
                        const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  if (!value.is_string()) throw QueryError{path + ": must be a string, one of " + list};
  const std::string name = value.get<std::string>();
  for (const std::string& known : names) {
    if (name == known) return name;
  }
  throw QueryError{path + ": unknown value '" + name + "' (" + list + ")"};
}

QueryObject read_object(const Json& query, const std::string& query_path, const char* key,
                        const std::string& base_dir) {
  const std::string path = query_path + "." + key;
  const Json& object = require_key(query, query_path, key);
  if (!object.is_object()) throw QueryError{path + ": must be an object"};
  check_keys(object, path,
             {"shape", "position", "orientation", "linear_velocity", "angular_velocity"});
  const Json& shape_json = require_key(object, path, "shape");
  std::string shape_error;
  std::optional<Shape> shape = parse_shape_json(shape_json, path + ".shape", base_dir,
                                                &shape_error);
  if (!shape) throw QueryError{shape_error};
  QueryObject result{*shape, RigidMotion{}};
  if (auto p = object.find("position"); p != object.end()) {
    result.motion.pose0.position = read_vec3(*p, path + ".position");
  }
  if (auto q = object.find("orientation"); q != object.end()) {
    result.motion.pose0.orientation = read_quaternion(*q, path + ".orientation");
  }
  if (auto v = object.find("linear_velocity"); v != object.end()) {
    result.motion.linear_velocity = read_vec3(*v, path + ".linear_velocity");
  }
  if (auto w = object.find("angular_velocity"); w != object.end()) {
    result.motion.angular_velocity = read_vec3(*w, path + ".angular_velocity");
  }
  return result;
}

void require_shape_type(const QueryObject& object, const std::string& object_path,
                        const std::vector<ShapeType>& types) {
  std::string list;
  for (ShapeType type : types) {
    if (object.shape.type == type) return;
    list += std::string(list.empty() ? "" : ", ") + shape_type_name(type);
  }
  throw QueryError{object_path + ".shape.type: must be " + (types.size() > 1 ? "one of " : "") +
                   list + " for this query type, got " + shape_type_name(object.shape.type)};
}

OrderedJson vec3_json(const Vec3& v) { return OrderedJson::array({v.x(), v.y(), v.z()}); }

}  // namespace impetus::cli
