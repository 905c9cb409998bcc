// A plane (solid half-space n·x <= offset) against any other shape: smooth shapes touch at
// their support point along −n, capsules at their two end caps, polyhedra (box, hull, mesh) at
// every vertex below the plane + margin, reduced to the deepest and widest-spread 4.
#include <vector>

#include "collision/narrowphase/contact_pairs.h"
#include "collision/narrowphase/contact_reduction.h"
#include "collision/distance/primitive_distance.h"

namespace impetus {
namespace {

ContactPoint plane_point(const Vec3& n, double offset, const Vec3& on_b, std::uint32_t id) {
  ContactPoint c;
  c.normal = n;
  c.separation = n.dot(on_b) - offset;
  c.point_b = on_b;
  c.point_a = on_b - c.separation * n;
  c.feature_id = id;
  return c;
}

// Vertices (local frame) of a polyhedron below the plane + margin, reduced to 4.
bool polyhedron_points(const std::vector<Vec3>& verts, const Pose& pose, const Vec3& n,
                       double offset, double margin, Manifold& m) {
  thread_local std::vector<ContactPoint> cand;
  cand.clear();
  // The plane in the shape's frame: one dot product per vertex.
  const Vec3 n_local = pose.inverse_rotate(n);
  const double offset_local = offset - n.dot(pose.position);
  for (std::size_t i = 0; i < verts.size(); ++i) {
    if (n_local.dot(verts[i]) - offset_local < margin) {
      cand.push_back(plane_point(n, offset, pose.apply(verts[i]), static_cast<std::uint32_t>(i)));
    }
  }
  int k = reduce_to_four(cand.data(), static_cast<int>(cand.size()));
  for (int i = 0; i < k; ++i) m.add(cand[i]);
  return k > 0;
}

}  // namespace

bool collide_plane_shape(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                         double margin, Manifold& m) {
  Vec3 n;
  double offset;
  plane_world(a, pa, n, offset);
  switch (b.type) {
    case ShapeType::Sphere:
    case ShapeType::Ellipsoid: {
      ContactPoint c = plane_point(n, offset, support_world(b, pb, -n), 0);
      if (!(c.separation < margin)) return false;
      m.add(c);
      return true;
    }
    case ShapeType::Capsule: {
      const Vec3 axis = pb.rotate(Vec3(0, 0, b.half_length));
      bool any = false;
      for (int e = 0; e < 2; ++e) {
        Vec3 end = pb.position + (e == 0 ? -1.0 : 1.0) * axis;
        ContactPoint c = plane_point(n, offset, end - b.radius * n, static_cast<std::uint32_t>(e));
        if (c.separation < margin) {
          m.add(c);
          any = true;
        }
      }
      return any;
    }
    case ShapeType::Box: {
      thread_local std::vector<Vec3> corners(8);
      for (int k = 0; k < 8; ++k) {
        corners[k] = Vec3((k & 1) ? b.half_extents.x() : -b.half_extents.x(),
                          (k & 2) ? b.half_extents.y() : -b.half_extents.y(),
                          (k & 4) ? b.half_extents.z() : -b.half_extents.z());
      }
      return polyhedron_points(corners, pb, n, offset, margin, m);
    }
    case ShapeType::Convex: return polyhedron_points(b.hull->vertices, pb, n, offset, margin, m);
    case ShapeType::Mesh: return polyhedron_points(b.mesh->vertices, pb, n, offset, margin, m);
    case ShapeType::Plane: return false;
  }
  return false;
}

}  // namespace impetus
