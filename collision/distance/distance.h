#pragma once
// Static signed distance between two shapes (the `distance` query): positive = separation
// distance, negative = −(penetration depth), with witness points and the normal a → b such that
// point_b − point_a = distance · normal, also when overlapping.
#include <optional>
#include <string>

#include "collision/shape/shape.h"

namespace impetus {

struct DistanceResult {
  double distance = 0;
  Vec3 point_a = Vec3::Zero();
  Vec3 point_b = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();
};

/// Signed distance for every pair of shape types except plane–plane (returns nullopt with
/// `error` set). Convex pairs: closed forms where they exist, else GJK (separated) and EPA
/// (overlapping). Meshes: BVH traversal with distance bounds; a mesh is treated as its surface.
std::optional<DistanceResult> signed_distance(const Shape& a, const Pose& pose_a, const Shape& b,
                                              const Pose& pose_b, std::string* error = nullptr);

}  // namespace impetus
