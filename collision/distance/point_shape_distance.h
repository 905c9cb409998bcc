#pragma once
// Signed distance from a point (a cloth vertex, in the engine) to every rigid shape type, with
// the closest surface point and the outward normal, in world coordinates. Closed forms for
// sphere, capsule, box and plane; Eberly's bisection for the ellipsoid (robust inside and out);
// face planes and triangles for convex hulls; BVH + triangles for meshes, which are treated as
// two-sided surfaces: a point whose step x_prev → x crosses a triangle is inside, behind that
// triangle (so a cloth can never tunnel through a thin or open mesh).
#include "collision/shape/shape.h"

namespace impetus {

struct ShapeProximity {
  double distance = 0;           // signed: < 0 inside the solid / behind the crossed surface
  Vec3 normal = Vec3::UnitZ();   // unit, outward from the shape (direction of increasing distance)
  Vec3 point = Vec3::Zero();     // closest surface point
};

/// True (and `out` filled) when the signed distance of x is below `max_distance`.
/// `x_prev` is the point's position at the start of the step (used for meshes only).
bool point_shape_proximity(const Shape& shape, const Pose& pose, const Vec3& x, const Vec3& x_prev,
                           double max_distance, ShapeProximity& out);

/// Closest point on the ellipsoid surface Σ (y_i/r_i)² = 1 to q (local frame), and the
/// unsigned distance; `inside` reports Σ (q_i/r_i)² < 1.
Vec3 closest_point_on_ellipsoid(const Vec3& radii, const Vec3& q, double* distance, bool* inside);

}  // namespace impetus
