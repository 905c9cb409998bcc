#include "collision/distance/distance.h"

#include "collision/distance/convex_signed_distance.h"
#include "collision/shape/convex_support.h"
#include "collision/distance/distance_mesh.h"
#include "collision/distance/primitive_distance.h"

namespace impetus {
namespace {

bool is_rounded_segment(ShapeType t) { return t == ShapeType::Sphere || t == ShapeType::Capsule; }

// Core segment of a sphere (a point) or capsule, world frame.
void core_segment(const Shape& s, const Pose& p, Vec3& p0, Vec3& p1) {
  Vec3 axis = s.type == ShapeType::Capsule ? p.rotate(Vec3(0, 0, s.half_length)) : Vec3::Zero();
  p0 = p.position - axis;
  p1 = p.position + axis;
}

// Plane a against any other shape b except a plane.
DistanceResult plane_distance(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb) {
  Vec3 n;
  double offset;
  plane_world(a, pa, n, offset);
  if (b.type != ShapeType::Mesh) return plane_convex_distance(n, offset, b, pb);
  // A mesh's deepest surface point along −n is a vertex (ties: lowest index).
  const auto& verts = b.mesh->vertices;
  Vec3 n_local = pb.inverse_rotate(n);
  int best = 0;
  for (int i = 1; i < static_cast<int>(verts.size()); ++i) {
    if (n_local.dot(verts[i]) < n_local.dot(verts[best])) best = i;
  }
  DistanceResult r;
  r.normal = n;
  r.point_b = pb.apply(verts[best]);
  r.distance = n.dot(r.point_b) - offset;
  r.point_a = r.point_b - r.distance * n;
  return r;
}

// Both convex (no plane, no mesh).
DistanceResult convex_distance(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb) {
  if (is_rounded_segment(a.type) && is_rounded_segment(b.type)) {
    Vec3 a0, a1, b0, b1;
    core_segment(a, pa, a0, a1);
    core_segment(b, pb, b0, b1);
    return rounded_segments_distance(a0, a1, a.radius, b0, b1, b.radius);
  }
  if (a.type == ShapeType::Sphere && b.type == ShapeType::Box) {
    return sphere_box_distance(pa.position, a.radius, b.half_extents, pb);
  }
  if (a.type == ShapeType::Box && b.type == ShapeType::Sphere) {
    return flipped(sphere_box_distance(pb.position, b.radius, a.half_extents, pa));
  }
  ConvexDistance c = convex_signed_distance(make_convex_support(a, pa), make_convex_support(b, pb));
  DistanceResult r;
  r.distance = c.distance;
  r.normal = c.normal;
  r.point_a = c.point_a;
  r.point_b = c.point_b;
  return r;
}

}  // namespace

std::optional<DistanceResult> signed_distance(const Shape& a, const Pose& pose_a, const Shape& b,
                                              const Pose& pose_b, std::string* error) {
  const bool plane_a = a.type == ShapeType::Plane;
  const bool plane_b = b.type == ShapeType::Plane;
  if (plane_a && plane_b) {
    if (error != nullptr) *error = "signed distance between two planes is not defined";
    return std::nullopt;
  }
  if (plane_a) return plane_distance(a, pose_a, b, pose_b);
  if (plane_b) return flipped(plane_distance(b, pose_b, a, pose_a));
  if (a.type == ShapeType::Mesh) {
    if (a.mesh == nullptr || a.mesh->triangles.empty()) {
      if (error != nullptr) *error = "mesh has no triangles";
      return std::nullopt;
    }
    return mesh_signed_distance(a, pose_a, b, pose_b);
  }
  if (b.type == ShapeType::Mesh) {
    if (b.mesh == nullptr || b.mesh->triangles.empty()) {
      if (error != nullptr) *error = "mesh has no triangles";
      return std::nullopt;
    }
    return flipped(mesh_signed_distance(b, pose_b, a, pose_a));
  }
  return convex_distance(a, pose_a, b, pose_b);
}

}  // namespace impetus
