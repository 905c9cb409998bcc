#include "tools/cli/batch_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "engine/golden_check.h"
#include "engine/json_reader.h"

namespace impetus::cli {

namespace {

using nlohmann::json;
using Ordered = nlohmann::ordered_json;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kListed = 5;  // worst bodies or cloths listed per failed check

std::string short_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

// How far `measured` lies outside the bound: 0 inside, +inf for NaN or a shape mismatch.
// `why` gets the first violated side, e.g. "[2] 0.3 > max 0.2".
double bound_excess(const json& measured, const Bound& bound, std::string* why) {
  double worst = 0;
  auto side = [&](const json& limit, bool is_max) {
    if (limit.is_null()) return;
    auto one = [&](double value, const json& lim, const std::string& where) {
      if (lim.is_null()) return;
      const double l = lim.get<double>();
      double excess = std::isnan(value) ? kInf : (is_max ? value - l : l - value);
      if (excess > worst) {
        worst = excess;
        *why = where + (std::isnan(value) ? "NaN" : short_number(value)) +
               (is_max ? " > max " : " < min ") + short_number(l);
      }
    };
    if (limit.is_number()) {
      if (measured.is_number()) {
        one(measured.get<double>(), limit, "");
      } else if (measured.is_null()) {
        one(std::nan(""), limit, "");
      } else {
        worst = kInf;
        *why = "measured value is not a number";
      }
      return;
    }
    if (!measured.is_array() || measured.size() != limit.size()) {
      worst = kInf;
      *why = "measured value has " + std::string(measured.is_array() ? std::to_string(measured.size()) : "no") +
             " components, the bound " + std::to_string(limit.size());
      return;
    }
    for (std::size_t i = 0; i < limit.size(); ++i) {
      const json& m = measured[i];
      one(m.is_number() ? m.get<double>() : std::nan(""), limit[i], "[" + std::to_string(i) + "] ");
    }
  };
  side(bound.min, false);
  side(bound.max, true);
  return worst;
}

void add_bound(Ordered& entry, const Bound& bound) {
  if (!bound.min.is_null()) entry["min"] = Ordered::parse(bound.min.dump());
  if (!bound.max.is_null()) entry["max"] = Ordered::parse(bound.max.dump());
}

// One named thing (a body or a cloth) measured for a bound.
struct Measured {
  std::string name;
  json value;
};

// A bound over one or several named things ("*" = all of them); lists the worst offenders.
CheckOutcome check_named(const std::string& group, const NamedBound& nb,
                         const std::vector<Measured>& all) {
  CheckOutcome out;
  const std::string name = group + "." + nb.name + "." + nb.quantity;
  out.entry["check"] = name;
  std::vector<const Measured*> selected;
  for (const Measured& m : all) {
    if (nb.name == "*" || m.name == nb.name) selected.push_back(&m);
  }
  if (selected.empty() && nb.name != "*") {
    out.passed = false;
    out.entry["passed"] = false;
    add_bound(out.entry, nb.bound);
    out.message = name + ": no " + (group == "bodies" ? "dynamic or kinematic body" : "cloth") +
                  " named \"" + nb.name + "\" in the run";
    out.entry["message"] = out.message;
    return out;
  }
  struct Violation {
    const Measured* m;
    double excess;
    std::string why;
  };
  std::vector<Violation> violations;
  for (const Measured* m : selected) {
    std::string why;
    double excess = bound_excess(m->value, nb.bound, &why);
    if (excess > 0) violations.push_back({m, excess, why});
  }
  std::stable_sort(violations.begin(), violations.end(),
                   [](const Violation& a, const Violation& b) { return a.excess > b.excess; });
  out.passed = violations.empty();
  out.entry["passed"] = out.passed;
  if (nb.name == "*") {
    out.entry["measured"] = {{"count", selected.size()}, {"outside", violations.size()}};
  } else {
    out.entry["measured"] = Ordered::parse(selected.front()->value.dump());
  }
  add_bound(out.entry, nb.bound);
  if (!out.passed) {
    Ordered worst = Ordered::array();
    for (std::size_t i = 0; i < violations.size() && i < kListed; ++i) {
      worst.push_back({{"name", violations[i].m->name},
                       {"measured", Ordered::parse(violations[i].m->value.dump())},
                       {"excess", violations[i].excess}});
    }
    out.entry["worst"] = worst;
    out.message = name + ": " + std::to_string(violations.size()) + " of " +
                  std::to_string(selected.size()) + " outside the bound, worst " +
                  violations.front().m->name + " " + violations.front().why;
    out.details = "  outside the bound (worst first):\n";
    for (std::size_t i = 0; i < violations.size() && i < kListed; ++i) {
      out.details += "    " + violations[i].m->name + ": " + violations[i].why + "\n";
    }
    out.entry["message"] = out.message;
  }
  return out;
}

json body_quantity(const FinalBodyState& body, const std::string& quantity) {
  const BodyState& s = body.state;
  auto vec = [](const Vec3& v) { return json::array({v.x(), v.y(), v.z()}); };
  if (quantity == "position") return vec(s.position);
  if (quantity == "linear_velocity") return vec(s.linear_velocity);
  if (quantity == "angular_velocity") return vec(s.angular_velocity);
  if (quantity == "speed") return s.linear_velocity.norm();
  return s.angular_velocity.norm();  // angular_speed
}

CheckOutcome check_golden(const GoldenCheck& golden, const FinalStates& final, bool update) {
  CheckOutcome out;
  out.entry["check"] = "golden";
  out.entry["file"] = golden.file;
  out.entry["mode"] = golden.exact ? "exact" : "tol";
  if (update) {
    out.entry["passed"] = true;
    out.entry["updated"] = true;
    return out;
  }
  std::string error;
  std::optional<FinalStates> reference = load_golden_summary(golden.path, &error);
  if (!reference) {
    out.passed = false;
    out.entry["passed"] = false;
    out.message = "golden: " + error;
    out.entry["message"] = out.message;
    return out;
  }
  GoldenOptions options;
  options.exact = golden.exact;
  options.tolerance = golden.tolerance;
  options.max_listed = kListed;
  GoldenReport report = compare_with_golden(final, *reference, options);
  // A batch fixes its steps by the scene and overrides, so a golden of another length is stale.
  const bool same_steps = final.steps == reference->steps;
  out.passed = report.passed && same_steps;
  out.entry["passed"] = out.passed;
  if (golden.exact) {
    out.entry["measured"] = final.state_hash;
    out.entry["expected"] = reference->state_hash;
  } else {
    out.entry["measured"] = report.max_error;
    out.entry["max"] = golden.tolerance;
  }
  if (!same_steps) out.entry["steps"] = {{"run", final.steps}, {"golden", reference->steps}};
  Ordered worst = Ordered::array();
  for (const BodyError& e : report.worst) {
    if (!(e.max() > 0)) break;
    worst.push_back({{"name", e.name}, {"position", e.position}, {"orientation", e.orientation},
                     {"linear_velocity", e.linear_velocity},
                     {"angular_velocity", e.angular_velocity}});
  }
  if (!worst.empty()) out.entry["worst_bodies"] = worst;
  if (!report.missing.empty()) out.entry["missing"] = report.missing;
  if (!report.extra.empty()) out.entry["extra"] = report.extra;
  if (!out.passed) {
    if (!same_steps) {
      out.message = "golden: the run took " + std::to_string(final.steps) + " steps, the golden " +
                    std::to_string(reference->steps);
    } else if (golden.exact) {
      out.message = "golden: state_hash " + final.state_hash + " differs from " + reference->state_hash;
    } else {
      out.message = "golden: max error " + short_number(report.max_error) + " > tol " +
                    short_number(golden.tolerance);
      if (!report.worst.empty() && report.worst.front().max() > 0) {
        out.message += " (worst body " + report.worst.front().name + ")";
      }
      if (final.status != reference->status) {
        out.message += ", status " + final.status + " vs golden " + reference->status;
      }
    }
    out.details = report.text;
    out.entry["message"] = out.message;
  }
  return out;
}

}  // namespace

std::vector<CheckOutcome> evaluate_checks(const RunChecks& checks, const FinalStates& final,
                                          const json& summary, bool update_golden) {
  std::vector<CheckOutcome> outcomes;
  {
    CheckOutcome status;
    status.entry["check"] = "status";
    status.passed = checks.status == "any" || final.status == checks.status;
    status.entry["passed"] = status.passed;
    status.entry["measured"] = final.status;
    status.entry["expected"] = checks.status;
    if (!status.passed) {
      status.message = "status: run \"" + final.status + "\", expected \"" + checks.status + "\"";
      status.entry["message"] = status.message;
    }
    outcomes.push_back(std::move(status));
  }
  if (checks.golden) outcomes.push_back(check_golden(*checks.golden, final, update_golden));

  const json empty = json::object();
  const json& stats = summary.contains("stats") ? summary["stats"] : empty;
  for (const auto& [key, bound] : checks.stats) {
    CheckOutcome out;
    const std::string name = "stats." + key;
    out.entry["check"] = name;
    auto it = stats.find(key);
    if (it == stats.end()) {
      out.passed = false;
      out.entry["passed"] = false;
      add_bound(out.entry, bound);
      out.message = name + ": not reported in summary.json";
    } else {
      std::string why;
      out.passed = !(bound_excess(*it, bound, &why) > 0);
      out.entry["passed"] = out.passed;
      out.entry["measured"] = Ordered::parse(it->dump());
      add_bound(out.entry, bound);
      if (!out.passed) out.message = name + ": " + why;
    }
    if (!out.passed) out.entry["message"] = out.message;
    outcomes.push_back(std::move(out));
  }
  for (const NamedBound& nb : checks.bodies) {
    std::vector<Measured> measured;
    for (const FinalBodyState& body : final.bodies) {
      measured.push_back({body.name, body_quantity(body, nb.quantity)});
    }
    outcomes.push_back(check_named("bodies", nb, measured));
  }
  const json& cloths = summary.contains("cloths") ? summary["cloths"] : empty;
  for (const NamedBound& nb : checks.cloths) {
    std::vector<Measured> measured;
    for (auto it = cloths.begin(); it != cloths.end(); ++it) {
      measured.push_back({it.key(), it->contains(nb.quantity) ? (*it)[nb.quantity] : json()});
    }
    outcomes.push_back(check_named("cloths", nb, measured));
  }
  return outcomes;
}

}  // namespace impetus::cli
