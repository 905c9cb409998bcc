#pragma once
// Ray casts against one shape: the first point where the segment origin + f·translation,
// f in [0, 1], enters the shape. The building block of World::ray_cast (issue 15).
//
// Convex shapes, planes (the half-space normal·x <= offset) are solid: a ray that starts inside
// hits at fraction 0 with the normal −translation/|translation|. Triangle meshes are surfaces
// (they may be open): the first triangle crossed, from either side, with its normal turned
// against the ray.
#include <optional>

#include "collision/base/math.h"
#include "collision/shape/shape.h"

namespace impetus {

struct ShapeRayHit {
  double fraction = 0;            // along the translation, in [0, 1]
  Vec3 point = Vec3::Zero();      // world
  Vec3 normal = Vec3::UnitZ();    // world, unit, outward at the hit (against the ray)
};

/// First hit of the segment [origin, origin + translation] (world frame) with `shape` placed at
/// `pose`; nullopt when the segment misses. A zero translation hits only if the origin is
/// inside a solid shape.
std::optional<ShapeRayHit> ray_cast(const Shape& shape, const Pose& pose, const Vec3& origin,
                                    const Vec3& translation);

/// First hit of the segment with the triangle (a, b, c), a surface seen from either side (as a
/// mesh's triangles are): nullopt when it misses or is parallel to the plane of the triangle.
/// The normal is the triangle's, turned against the ray. For cloth in World::ray_cast.
std::optional<ShapeRayHit> ray_cast_triangle(const Vec3& a, const Vec3& b, const Vec3& c,
                                             const Vec3& origin, const Vec3& translation);

}  // namespace impetus
