#pragma once
// Signed distance between a triangle mesh and a convex shape or another mesh, by traversal of
// the mesh BVH(s) with AABB distance lower bounds.
//
// Convention: a mesh is its triangle surface, each triangle a flat convex set. The result is
// the minimum over triangles (triangle pairs) of their signed distance to the other shape, so
// it is negative when the other shape crosses the surface, with the depth of the deepest
// crossing triangle. A closed mesh is also a solid: when no triangle is crossed but the other
// shape's witness point lies inside it (winding number), the gap to the surface is reported
// negated (−gap, normal flipped so that point_b − point_a = distance·normal still holds).
#include "collision/distance/distance.h"
#include "collision/shape/shape.h"

namespace impetus {

/// Mesh a against b (convex shape or mesh; not a plane). World frame result, normal a → b.
DistanceResult mesh_signed_distance(const Shape& a, const Pose& pose_a, const Shape& b,
                                    const Pose& pose_b);

}  // namespace impetus
