// MCD entry points: method names, dispatch and the golden-section method for any pair.
#include "collision/continuous/continuous_distance.h"

#include <algorithm>
#include <cmath>

#include "collision/continuous/mcd_golden_section.h"
#include "collision/continuous/mcd_pair_distance.h"

namespace impetus {
namespace {

bool is_capsule_like(const Shape& s) {
  return s.type == ShapeType::Capsule || s.type == ShapeType::Sphere;
}

struct MethodName {
  McdMethod method;
  const char* name;
};
constexpr MethodName kMethodNames[] = {
    {McdMethod::GoldenSection, "golden_section"},
    {McdMethod::ConservativeAdvancement, "conservative_advancement"},
    {McdMethod::Hybrid, "hybrid"},
    {McdMethod::AdaptiveSubdivision, "adaptive_subdivision"},
    {McdMethod::Sampling, "sampling"},
};

}  // namespace

const char* mcd_method_name(McdMethod method) {
  for (const MethodName& m : kMethodNames) {
    if (m.method == method) return m.name;
  }
  return "unknown";
}

std::optional<McdMethod> parse_mcd_method(const std::string& name) {
  for (const MethodName& m : kMethodNames) {
    if (name == m.name) return m.method;
  }
  return std::nullopt;
}

McdMethod default_mcd_method(const Shape& a, const Shape& b) {
  return is_capsule_like(a) && is_capsule_like(b) ? McdMethod::Hybrid
                                                  : McdMethod::AdaptiveSubdivision;
}

McdResult mcd_golden_section(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                             const RigidMotion& motion_b, double t0, double t1,
                             const McdOptions& options) {
  mcd_detail::PairDistance pair(a, motion_a, b, motion_b);
  const double time_tolerance = 1e-12 * std::max(1.0, std::max(std::abs(t0), std::abs(t1)));
  mcd_detail::golden_section_search([&](double t) { return pair(t).distance; }, t0, t1,
                                    0.25 * options.tolerance, time_tolerance,
                                    std::max(1, options.max_evaluations));
  // No certificate (§III.B): only the trivial bound below.
  McdResult r = mcd_detail::make_result(pair, pair.trivial_lower_bound(), options.tolerance, true);
  return r;
}

std::optional<McdResult> continuous_distance(const Shape& a, const RigidMotion& motion_a,
                                             const Shape& b, const RigidMotion& motion_b,
                                             double t0, double t1, McdMethod method,
                                             const McdOptions& options, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<McdResult> {
    if (error != nullptr) *error = why;
    return std::nullopt;
  };
  if (!std::isfinite(t0) || !std::isfinite(t1) || !(t1 >= t0)) {
    return fail("mcd: interval must be finite with t0 <= t1");
  }
  if (!(options.tolerance > 0)) return fail("mcd: tolerance must be positive");
  if (a.type == ShapeType::Plane && b.type == ShapeType::Plane) {
    return fail("mcd: two planes have no signed distance");
  }
  if ((a.type == ShapeType::Plane && motion_a.angular_velocity.squaredNorm() > 0) ||
      (b.type == ShapeType::Plane && motion_b.angular_velocity.squaredNorm() > 0)) {
    return fail("mcd: a rotating plane has no motion bound");
  }
  const bool capsules = is_capsule_like(a) && is_capsule_like(b);
  switch (method) {
    case McdMethod::GoldenSection:
      return mcd_golden_section(a, motion_a, b, motion_b, t0, t1, options);
    case McdMethod::ConservativeAdvancement:
      if (!capsules) return fail("mcd: conservative_advancement needs two capsules or spheres");
      return mcd_conservative_advancement(a, motion_a, b, motion_b, t0, t1, options);
    case McdMethod::Hybrid:
      if (!capsules) return fail("mcd: hybrid needs two capsules or spheres");
      return mcd_hybrid(a, motion_a, b, motion_b, t0, t1, options);
    case McdMethod::AdaptiveSubdivision:
      return mcd_adaptive_subdivision(a, motion_a, b, motion_b, t0, t1, options);
    case McdMethod::Sampling:
      return mcd_sampling(a, motion_a, b, motion_b, t0, t1, options);
  }
  return fail("mcd: unknown method");
}

}  // namespace impetus
