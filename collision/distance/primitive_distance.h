#pragma once
// Closed-form signed distances between primitives, shared by the distance query and the
// narrowphase: rounded segments (sphere and capsule pairs, paper 2, eq. 3.1), sphere–box and a
// plane against any convex shape (its support point).
#include "collision/base/math.h"
#include "collision/distance/distance.h"
#include "collision/shape/shape.h"

namespace impetus {

/// Rounded segments a0a1 ⊕ ball(ra) and b0b1 ⊕ ball(rb) (a sphere is a0 == a1):
/// δ = dist(segments) − (ra + rb). When the segments touch, the normal is the common
/// perpendicular (crossing segments) or perpendicular to the segment(s), oriented a → b by the
/// midpoints where that is defined, else +z.
DistanceResult rounded_segments_distance(const Vec3& a0, const Vec3& a1, double ra,
                                         const Vec3& b0, const Vec3& b1, double rb);

/// Sphere (centre c, radius r) as a, box (half extents h at pose) as b. A centre inside the box
/// leaves through the nearest face (ties: lowest axis, + side).
DistanceResult sphere_box_distance(const Vec3& c, double r, const Vec3& h, const Pose& box_pose);

/// Plane (world unit normal n, solid half-space n·x <= offset) as a, convex shape as b: the
/// deepest point of b along −n is b's witness.
DistanceResult plane_convex_distance(const Vec3& n, double offset, const Shape& b,
                                     const Pose& pose_b);

/// World normal and offset of a plane shape placed at `pose`.
void plane_world(const Shape& plane, const Pose& pose, Vec3& normal, double& offset);

/// The same result seen from the other side: points swapped, normal negated.
DistanceResult flipped(const DistanceResult& r);

}  // namespace impetus
