#pragma once
// Signed distance of two convex sets (core ⊕ ball): GJK on the cores when they are apart (the
// radii are then added in closed form), EPA on slightly inflated sets when the cores touch or
// overlap. One entry point for the distance query, the convex narrowphase and mesh triangles.
#include "collision/base/math.h"
#include "collision/shape/convex_support.h"

namespace impetus {

struct ConvexDistance {
  double distance = 0;          // > 0 gap, < 0 −(penetration depth) [m]
  Vec3 point_a = Vec3::Zero();  // on a's surface (world)
  Vec3 point_b = Vec3::Zero();  // on b's surface; point_b − point_a = distance·normal
  Vec3 normal = Vec3::UnitZ();  // unit, a → b
  bool fallback = false;        // EPA could not run: normal from the centres, SAT depth along it
};

/// Signed distance of a and b (both including their radius). When `max_distance` is finite and
/// the distance is proved larger, returns early with `distance` a lower bound (> max_distance)
/// and unspecified points.
ConvexDistance convex_signed_distance(const ConvexSupport& a, const ConvexSupport& b,
                                      double max_distance = 1e300);

}  // namespace impetus
