#pragma once
// The pair algorithms of the narrowphase table (narrowphase.cpp). Each appends the contact
// points of a against b to `m` (m is not cleared) with normals a → b, keeps only points whose
// separation is below `margin`, and returns true when it added at least one.
#include <cstdint>

#include "collision/distance/distance.h"
#include "collision/narrowphase/contact.h"
#include "collision/shape/shape.h"

namespace impetus {

/// The closed-form pairs' one step from a distance to a contact: adds d's witness points as a
/// contact (normal a → b) when d.distance is below `margin`; true when added.
inline bool add_distance_point(const DistanceResult& d, double margin, Manifold& m,
                               std::uint32_t feature_id = 0) {
  if (!(d.distance < margin)) return false;
  ContactPoint c;
  c.normal = d.normal;
  c.point_a = d.point_a;
  c.point_b = d.point_b;
  c.separation = d.distance;
  c.feature_id = feature_id;
  m.add(c);
  return true;
}

// Closed forms (rounded segments, sphere–box).
bool collide_sphere_sphere(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                           double margin, Manifold& m);
bool collide_sphere_capsule(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                            double margin, Manifold& m);
bool collide_capsule_capsule(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                             double margin, Manifold& m);
bool collide_sphere_box(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                        double margin, Manifold& m);
/// Box–box: separating axes (15) and reference-face clipping, up to 4 points.
bool collide_box_box(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                     double margin, Manifold& m);
/// Any two convex shapes: GJK/EPA for the normal and depth, then a face manifold by clipping
/// when both sides offer a face or edge along the normal (polytopes, capsules), else one point.
bool collide_convex_convex(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                           double margin, Manifold& m);
/// Plane a against any shape b but a plane: the points of b below the plane + margin
/// (sphere/ellipsoid: support point; capsule: end caps; box/hull/mesh: vertices, reduced to 4).
bool collide_plane_shape(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                         double margin, Manifold& m);
/// Mesh a against convex b: triangles overlapping b's box (inflated by margin) from the BVH,
/// per-triangle convex contacts, reduced to kMaxManifoldPoints (deepest first, then spread).
bool collide_mesh_convex(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                         double margin, Manifold& m);

}  // namespace impetus
