#include "engine/golden_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

namespace impetus {

namespace {

using Json = nlohmann::json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Reads `count` numbers of an array; null stands for NaN (nlohmann writes NaN and Inf as null).
bool read_numbers(const Json& value, int count, double* out) {
  if (!value.is_array() || static_cast<int>(value.size()) != count) return false;
  for (int i = 0; i < count; ++i) {
    const Json& item = value[static_cast<std::size_t>(i)];
    if (item.is_number()) {
      out[i] = item.get<double>();
    } else if (item.is_null()) {
      out[i] = kNaN;
    } else {
      return false;
    }
  }
  return true;
}

std::optional<BodyState> read_body_state(const Json& body, const std::string& path,
                                         std::string* error) {
  if (!body.is_object()) {
    *error = path + ": must be an object";
    return std::nullopt;
  }
  BodyState state;
  double v[4];
  struct Field {
    const char* key;
    int count;
  };
  for (Field field : {Field{"position", 3}, Field{"orientation", 4},
                      Field{"linear_velocity", 3}, Field{"angular_velocity", 3}}) {
    auto it = body.find(field.key);
    if (it == body.end()) {
      *error = path + ": missing key '" + field.key + "'";
      return std::nullopt;
    }
    if (!read_numbers(*it, field.count, v)) {
      *error = path + "." + field.key + ": must be an array of " + std::to_string(field.count) +
               " numbers";
      return std::nullopt;
    }
    const std::string key = field.key;
    if (key == "position") state.position = Vec3(v[0], v[1], v[2]);
    if (key == "orientation") state.orientation = Quat(v[0], v[1], v[2], v[3]);
    if (key == "linear_velocity") state.linear_velocity = Vec3(v[0], v[1], v[2]);
    if (key == "angular_velocity") state.angular_velocity = Vec3(v[0], v[1], v[2]);
  }
  return state;
}

std::string format_double(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

// NaN errors count as infinitely wrong: a comparison with NaN would otherwise pass silently.
double sanitise(double error) { return std::isnan(error) ? kInf : error; }

}  // namespace

double BodyError::max() const {
  return std::max({sanitise(position), sanitise(orientation), sanitise(linear_velocity),
                   sanitise(angular_velocity)});
}

double orientation_angle_error(const Quat& a, const Quat& b) {
  // The relative rotation r = b⁻¹·a has angle 2·atan2(|r.vec|, |r.w|); taking |r.w| makes q and
  // −q equal, and atan2 keeps full precision near zero where acos(|dot|) would lose it.
  const Quat r = b.conjugate() * a;
  return 2.0 * std::atan2(r.vec().norm(), std::abs(r.w()));
}

std::optional<FinalStates> load_golden_summary(const std::string& path, std::string* error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    *error = path + ": cannot open file";
    return std::nullopt;
  }
  Json doc;
  try {
    doc = Json::parse(file);
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    *error = path + ": invalid JSON: " + what.substr(what.find(' ') + 1);
    return std::nullopt;
  }
  if (!doc.is_object()) {
    *error = path + ": (root): must be an object";
    return std::nullopt;
  }
  auto fail = [&](const std::string& message) {
    *error = path + ": " + message;
    return std::nullopt;
  };
  auto format = doc.find("format");
  if (format == doc.end() || !format->is_string() ||
      format->get<std::string>() != "impetus-summary/1") {
    return fail("format: must be \"impetus-summary/1\"");
  }
  FinalStates golden;
  if (auto it = doc.find("scene"); it != doc.end()) {
    if (!it->is_string()) return fail("scene: must be a string");
    golden.scene = it->get<std::string>();
  }
  auto status = doc.find("status");
  if (status == doc.end() || !status->is_string() ||
      (status->get<std::string>() != "ok" && status->get<std::string>() != "diverged")) {
    return fail("status: must be \"ok\" or \"diverged\"");
  }
  golden.status = status->get<std::string>();
  auto steps = doc.find("steps");
  if (steps == doc.end() || !steps->is_number_integer() || steps->get<long long>() < 0) {
    return fail("steps: must be a non-negative integer");
  }
  golden.steps = steps->get<long long>();
  auto hash = doc.find("state_hash");
  if (hash == doc.end() || !hash->is_string() || hash->get<std::string>().size() != 16 ||
      hash->get<std::string>().find_first_not_of("0123456789abcdef") != std::string::npos) {
    return fail("state_hash: must be 16 lower-case hex digits");
  }
  golden.state_hash = hash->get<std::string>();
  auto bodies = doc.find("bodies");
  if (bodies == doc.end() || !bodies->is_object()) return fail("bodies: must be an object");
  // nlohmann::json keeps keys sorted; order does not matter for the comparison by name.
  for (const auto& [name, body] : bodies->items()) {
    std::optional<BodyState> state = read_body_state(body, "bodies." + name, error);
    if (!state) {
      *error = path + ": " + *error;
      return std::nullopt;
    }
    golden.bodies.push_back({name, *state});
  }
  return golden;
}

GoldenReport compare_with_golden(const FinalStates& run, const FinalStates& golden,
                                 const GoldenOptions& options) {
  GoldenReport report;
  report.hash_equal = run.state_hash == golden.state_hash;

  std::map<std::string, const BodyState*> golden_by_name;
  for (const FinalBodyState& body : golden.bodies) golden_by_name[body.name] = &body.state;
  std::map<std::string, bool> seen;
  std::vector<BodyError> errors;
  for (const FinalBodyState& body : run.bodies) {
    auto it = golden_by_name.find(body.name);
    if (it == golden_by_name.end()) {
      report.extra.push_back(body.name);
      continue;
    }
    seen[body.name] = true;
    const BodyState& g = *it->second;
    const BodyState& r = body.state;
    BodyError e;
    e.name = body.name;
    e.position = (r.position - g.position).norm();
    e.orientation = orientation_angle_error(r.orientation, g.orientation);
    e.linear_velocity = (r.linear_velocity - g.linear_velocity).norm();
    e.angular_velocity = (r.angular_velocity - g.angular_velocity).norm();
    errors.push_back(e);
  }
  for (const FinalBodyState& body : golden.bodies) {
    if (!seen.count(body.name)) report.missing.push_back(body.name);
  }

  // Worst first; ties by name so the report is the same on every run.
  std::stable_sort(errors.begin(), errors.end(), [](const BodyError& a, const BodyError& b) {
    if (a.max() != b.max()) return a.max() > b.max();
    return a.name < b.name;
  });
  for (const BodyError& e : errors) report.max_error = std::max(report.max_error, e.max());
  const std::size_t listed =
      std::min(errors.size(), static_cast<std::size_t>(std::max(0, options.max_listed)));
  report.worst.assign(errors.begin(), errors.begin() + static_cast<std::ptrdiff_t>(listed));

  const bool status_equal = run.status == golden.status;
  const bool same_bodies = report.missing.empty() && report.extra.empty();
  if (options.exact) {
    report.passed = report.hash_equal;
  } else {
    report.passed = status_equal && same_bodies && report.max_error <= options.tolerance;
  }

  std::string& t = report.text;
  if (options.exact) {
    t += report.passed ? "check passed: state_hash " + run.state_hash + " matches the golden\n"
                       : "check FAILED: state_hash " + run.state_hash + " differs from golden " +
                             golden.state_hash + "\n";
  } else {
    t += std::string(report.passed ? "check passed" : "check FAILED") + ": max error " +
         format_double(report.max_error) + " (tolerance " + format_double(options.tolerance) +
         ") over " + std::to_string(errors.size()) + " bodies\n";
  }
  if (!status_equal) t += "  status: run '" + run.status + "', golden '" + golden.status + "'\n";
  if (run.steps != golden.steps) {
    t += "  steps: run " + std::to_string(run.steps) + ", golden " + std::to_string(golden.steps) +
         "\n";
  }
  if (!golden.scene.empty() && run.scene != golden.scene) {
    t += "  scene: run '" + run.scene + "', golden '" + golden.scene + "'\n";
  }
  if (!report.passed && !report.worst.empty() && report.worst.front().max() > 0) {
    t += "  worst bodies (position m, orientation rad, linear velocity m/s, angular velocity "
         "rad/s):\n";
    for (const BodyError& e : report.worst) {
      if (!(e.max() > 0)) break;
      t += "    " + e.name + ": position " + format_double(e.position) + ", orientation " +
           format_double(e.orientation) + ", linear_velocity " +
           format_double(e.linear_velocity) + ", angular_velocity " +
           format_double(e.angular_velocity) + "\n";
    }
  }
  auto list_names = [&t](const char* label, const std::vector<std::string>& names) {
    if (names.empty()) return;
    t += std::string("  ") + label + " (" + std::to_string(names.size()) + "):";
    const std::size_t shown = std::min<std::size_t>(names.size(), 10);
    for (std::size_t i = 0; i < shown; ++i) t += " " + names[i];
    if (names.size() > shown) t += " ...";
    t += "\n";
  };
  list_names("missing from the run", report.missing);
  list_names("not in the golden", report.extra);
  return report;
}

}  // namespace impetus
