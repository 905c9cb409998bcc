#pragma once
// A convex set in world coordinates seen only through its support mapping, as GJK and EPA need
// it: core ⊕ ball(radius). Spheres and capsules are split into a point / segment core plus their
// radius, so that GJK on the cores stays exact (no curved surfaces) and the radius is added in
// closed form afterwards; mesh triangles are 3-point cores.
#include <array>

#include "collision/base/math.h"
#include "collision/shape/shape.h"

namespace impetus {

struct ConvexSupport {
  /// Core given by a shape at a pose (box, ellipsoid, convex hull) ...
  const Shape* shape = nullptr;
  Pose pose;
  /// ... or by 1 to 3 world points (sphere centre, capsule segment, triangle).
  std::array<Vec3, 3> points{};
  int point_count = 0;
  /// Radius of the ball swept over the core [m] (sphere and capsule radius, else 0).
  double radius = 0;

  /// Support point of the core alone, world frame: argmax over the core of dir·x (dir ≠ 0).
  Vec3 support_core(const Vec3& dir) const;
  /// Support point of core ⊕ ball(radius + inflate).
  Vec3 support(const Vec3& dir, double inflate = 0) const;
  /// A point inside the core (its centre); used to seed GJK and orient fallbacks.
  Vec3 center() const;
  /// Radius of a ball around center() that contains the whole set (core and radius).
  double extent() const;
};

/// Core + radius view of a convex shape (sphere, capsule, box, ellipsoid, convex) at `pose`.
/// The Shape must outlive the returned value.
ConvexSupport make_convex_support(const Shape& shape, const Pose& pose);

/// A triangle (world vertices) as a flat convex set with zero radius.
ConvexSupport make_triangle_support(const Vec3& p0, const Vec3& p1, const Vec3& p2);

}  // namespace impetus
