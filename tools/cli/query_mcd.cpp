// `mcd` query: minimum over a time interval of the signed distance of two objects in uniform
// rigid motion (paper 2, collision/continuous/continuous_distance.h).
#include <cmath>
#include <optional>
#include <string>

#include "collision/continuous/continuous_distance.h"
#include "tools/cli/query_types.h"

namespace impetus::cli {

namespace {

// McdOptions' default ε, used when the query gives no `tolerance`.
constexpr double kDefaultTolerance = 1e-6;
// `samples` beyond this would exceed the library's evaluation cap anyway.
constexpr long long kMaxSamples = 2000000;

// null for a bound the method does not give (golden section on non-capsules: −infinity).
OrderedJson bound_json(double value) {
  return std::isfinite(value) ? OrderedJson(value) : OrderedJson(nullptr);
}

}  // namespace

OrderedJson answer_mcd(const Json& query, const std::string& path, const std::string& base_dir) {
  check_keys(query, path, {"id", "type", "a", "b", "interval", "tolerance", "method", "samples"});
  QueryObject a = read_object(query, path, "a", base_dir);
  QueryObject b = read_object(query, path, "b", base_dir);
  double t0 = 0;
  double t1 = 0;
  read_interval(require_key(query, path, "interval"), path + ".interval", &t0, &t1);

  McdOptions options;
  options.tolerance = kDefaultTolerance;
  if (auto it = query.find("tolerance"); it != query.end()) {
    options.tolerance = read_positive(*it, path + ".tolerance");
  }
  McdMethod method = default_mcd_method(a.shape, b.shape);
  if (auto it = query.find("method"); it != query.end()) {
    const std::string name = read_choice(
        *it, path + ".method",
        {"hybrid", "golden_section", "conservative_advancement", "adaptive_subdivision",
         "sampling"});
    method = *parse_mcd_method(name);
  }
  if (auto it = query.find("samples"); it != query.end()) {
    if (method != McdMethod::Sampling) {
      throw QueryError{path + ".samples: only allowed with \"method\": \"sampling\""};
    }
    options.samples = static_cast<int>(read_integer(*it, path + ".samples", 2, kMaxSamples));
  }

  std::string error;
  std::optional<McdResult> r = continuous_distance(a.shape, a.motion, b.shape, b.motion, t0, t1,
                                                   method, options, &error);
  if (!r) throw QueryError{path + ": " + (error.empty() ? "no MCD for these objects" : error)};
  OrderedJson result = OrderedJson::object();
  result["mcd"] = r->mcd;
  result["time"] = r->time;
  result["lower_bound"] = bound_json(r->lower_bound);
  result["upper_bound"] = bound_json(r->upper_bound);
  result["evaluations"] = r->evaluations;
  // Additions: the method used (the default depends on the shapes) and whether the bracket is
  // proven within the tolerance.
  result["method"] = mcd_method_name(method);
  result["certified"] = r->certified;
  return result;
}

}  // namespace impetus::cli
