#include "engine/json_reader.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "engine/input_limits.h"

namespace impetus {

using nlohmann::json;

std::string JsonError::message() const { return path.empty() ? problem : path + ": " + problem; }

std::string json_key_path(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  std::string out = parent;
  out += '.';
  out += key;
  return out;
}

std::string json_index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string format_number(double value) {
  char buf[64];
  std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, r.ptr);
}

std::string describe_json(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case json::value_t::number_float: return format_number(value.get<double>());
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return value.dump();
    case json::value_t::string: {
      // Long strings are cut: the message should fit on a line. The cut moves back to the
      // start of a UTF-8 character, so that the message stays valid UTF-8 (query results
      // carry it inside JSON, which must be).
      std::string s = value.get<std::string>();
      if (s.size() > 40) {
        std::size_t cut = 37;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
        s = s.substr(0, cut) + "...";
      }
      return "\"" + s + "\"";
    }
    default: return "a value of an unexpected type";
  }
}

void require_format(const json& doc, const std::string& format, const std::string& what) {
  if (!doc.is_object()) {
    throw JsonError{"", "a " + what + " must be a JSON object, got " + describe_json(doc)};
  }
  auto it = doc.find("format");
  if (it == doc.end()) {
    throw JsonError{"format", "missing required key (must be \"" + format + "\")"};
  }
  if (!it->is_string() || it->get<std::string>() != format) {
    throw JsonError{"format", "must be \"" + format + "\", got " + describe_json(*it)};
  }
}

// ---- JsonObject ------------------------------------------------------------------------------

JsonObject::JsonObject(const json& value, std::string path,
                       std::initializer_list<std::string_view> allowed)
    : value_(&value), path_(std::move(path)) {
  if (!value.is_object()) {
    throw JsonError{path_, "must be an object, got " + describe_json(value)};
  }
  // nlohmann::json keeps object keys sorted, so "the first unknown key" is deterministic.
  for (auto it = value.begin(); it != value.end(); ++it) {
    bool known = false;
    for (std::string_view a : allowed) known = known || a == it.key();
    if (!known) {
      std::string list;
      for (std::string_view a : allowed) {
        if (!list.empty()) list += ", ";
        list += a;
      }
      throw JsonError{key_path(it.key()), "unknown key \"" + it.key() + "\" (allowed here: " +
                                              list + ")"};
    }
  }
}

bool JsonObject::has(std::string_view key) const { return find(key) != nullptr; }

const json* JsonObject::find(std::string_view key) const {
  auto it = value_->find(key);
  return it == value_->end() ? nullptr : &*it;
}

const json& JsonObject::require(std::string_view key) const {
  const json* v = find(key);
  if (v == nullptr) throw JsonError{key_path(key), "missing required key"};
  return *v;
}

// ---- scalars ---------------------------------------------------------------------------------

double read_number(const json& v, const std::string& path) {
  if (!v.is_number()) throw JsonError{path, "must be a number, got " + describe_json(v)};
  double x = v.get<double>();
  // A hand-built document can hold inf/nan (JSON text cannot; nlohmann rejects overflow).
  if (!std::isfinite(x)) throw JsonError{path, "must be a finite number, got " + format_number(x)};
  return x;
}

double read_positive(const json& v, const std::string& path) {
  if (!v.is_number()) throw JsonError{path, "must be a positive number, got " + describe_json(v)};
  double x = read_number(v, path);
  if (!(x > 0)) throw JsonError{path, "must be a positive number, got " + format_number(x)};
  return x;
}

double read_non_negative(const json& v, const std::string& path) {
  if (!v.is_number()) {
    throw JsonError{path, "must be a non-negative number, got " + describe_json(v)};
  }
  double x = read_number(v, path);
  if (x < 0) throw JsonError{path, "must be a non-negative number, got " + format_number(x)};
  return x;
}

// "must be a positive integer" etc.: the wording names the lower bound, which is what scenes
// get wrong; an upper bound is only mentioned when it is exceeded.
static std::string integer_kind(long long min_value) {
  if (min_value == 0) return "a non-negative integer";
  if (min_value == 1) return "a positive integer";
  if (min_value == std::numeric_limits<long long>::min()) return "an integer";
  return "an integer >= " + std::to_string(min_value);
}

long long read_integer(const json& v, const std::string& path, long long min_value,
                       long long max_value) {
  const std::string want = "must be " + integer_kind(min_value);
  const std::string too_big = "must be at most " + std::to_string(max_value) + ", got ";
  long long x = 0;
  if (v.is_number_integer() && !v.is_number_unsigned()) {
    x = v.get<long long>();
  } else if (v.is_number_unsigned()) {
    std::uint64_t u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(max_value)) throw JsonError{path, too_big + v.dump()};
    x = static_cast<long long>(u);
  } else if (v.is_number_float()) {
    double d = v.get<double>();
    // 4.0 is accepted as 4; 4.5 or 1e300 are not integers we can hold.
    if (!std::isfinite(d) || d != std::floor(d) || std::abs(d) > 9.0e15) {
      throw JsonError{path, want + ", got " + format_number(d)};
    }
    x = static_cast<long long>(d);
  } else {
    throw JsonError{path, want + ", got " + describe_json(v)};
  }
  if (x < min_value) throw JsonError{path, want + ", got " + std::to_string(x)};
  if (x > max_value) throw JsonError{path, too_big + std::to_string(x)};
  return x;
}

std::uint64_t read_uint64(const json& v, const std::string& path) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<long long>() < 0) {
    throw JsonError{path, "must be a non-negative integer, got " + v.dump()};
  }
  return static_cast<std::uint64_t>(
      read_integer(v, path, 0, std::numeric_limits<long long>::max()));
}

bool read_bool(const json& v, const std::string& path) {
  if (!v.is_boolean()) throw JsonError{path, "must be true or false, got " + describe_json(v)};
  return v.get<bool>();
}

std::string read_string(const json& v, const std::string& path) {
  if (!v.is_string()) throw JsonError{path, "must be a string, got " + describe_json(v)};
  return v.get<std::string>();
}

std::string read_name(const json& v, const std::string& path) {
  std::string s = read_string(v, path);
  if (s.empty()) throw JsonError{path, "must be a non-empty string"};
  if (s.size() > limits::kMaxNameBytes) {
    throw JsonError{path, "name of " + std::to_string(s.size()) + " bytes is longer than " +
                              std::to_string(limits::kMaxNameBytes) + " bytes (the limit)"};
  }
  return s;
}

void check_array(const json& v, const std::string& path, int size) {
  if (!v.is_array()) {
    std::string what = size < 0 ? "an array" : "an array of " + std::to_string(size) + " elements";
    throw JsonError{path, "must be " + what + ", got " + describe_json(v)};
  }
  if (size >= 0 && v.size() != static_cast<std::size_t>(size)) {
    throw JsonError{path, "must have exactly " + std::to_string(size) + " elements, got " +
                              std::to_string(v.size())};
  }
}

// ---- vectors ---------------------------------------------------------------------------------

Vec3 read_vec3(const json& v, const std::string& path) {
  check_array(v, path, 3);
  Vec3 out;
  for (int i = 0; i < 3; ++i) out[i] = read_number(v[i], json_index_path(path, i));
  return out;
}

Vec3 read_positive_vec3(const json& v, const std::string& path) {
  check_array(v, path, 3);
  Vec3 out;
  for (int i = 0; i < 3; ++i) out[i] = read_positive(v[i], json_index_path(path, i));
  return out;
}

Vec3 read_direction(const json& v, const std::string& path) {
  Vec3 d = read_vec3(v, path);
  double n = d.norm();
  // The norm of three finite doubles can still overflow to inf.
  if (!(n > 0) || !std::isfinite(n)) {
    throw JsonError{path, "must be a non-zero finite vector, got [" + format_number(d.x()) + ", " +
                              format_number(d.y()) + ", " + format_number(d.z()) + "]"};
  }
  return d / n;
}

Quat read_quaternion(const json& v, const std::string& path) {
  check_array(v, path, 4);
  double c[4];
  for (int i = 0; i < 4; ++i) c[i] = read_number(v[i], json_index_path(path, i));
  Quat q(c[0], c[1], c[2], c[3]);  // JSON is [w, x, y, z], as is Quat's constructor
  double n = q.norm();
  if (!(n > 0) || !std::isfinite(n)) {
    throw JsonError{path, "must be a non-zero quaternion [w, x, y, z], got [" +
                              format_number(c[0]) + ", " + format_number(c[1]) + ", " +
                              format_number(c[2]) + ", " + format_number(c[3]) + "]"};
  }
  q.coeffs() /= n;
  return q;
}

std::vector<Vec3> read_points(const json& v, const std::string& path, std::size_t min_count) {
  check_array(v, path, -1);
  if (v.size() < min_count) {
    throw JsonError{path, "must hold at least " + std::to_string(min_count) + " points, got " +
                              std::to_string(v.size())};
  }
  std::vector<Vec3> points;
  points.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) points.push_back(read_vec3(v[i], json_index_path(path, i)));
  return points;
}

}  // namespace impetus
