#include "collision/continuous/time_of_impact.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "collision/base/assert.h"
#include "collision/distance/convex_signed_distance.h"
#include "collision/shape/convex_support.h"
#include "collision/distance/distance.h"
#include "collision/continuous/plane_toi.h"

namespace impetus {
namespace {

double body_radius(const ToiBody& body) {
  if (body.radius > 0) return body.radius;
  return bounding_radius(*body.shape) + body.center_local.norm();
}

// ‖ω‖·R, or ‖ω × n‖·R with a direction; 0 for a body that does not rotate (R may be infinite).
// A sphere is the same set whatever its orientation: only its centre's motion about the rotation
// centre counts, so its R is ‖center_local‖ (a spinning ball gets no rotation term at all).
double rotation_term(const ToiBody& body, double radius, const Vec3* n) {
  const Vec3& w = body.motion.angular_velocity;
  if (w.squaredNorm() == 0) return 0;
  if (body.shape->type == ShapeType::Sphere) radius = body.center_local.norm();
  const double speed = n != nullptr ? w.cross(*n).norm() : w.norm();
  return speed * radius;
}

}  // namespace

Pose ToiBody::shape_pose(double t) const {
  Pose centre = motion.at(t);
  return Pose{centre.position - quat_rotate(centre.orientation, center_local), centre.orientation};
}

namespace {

struct Gap {
  double distance = 0;
  Vec3 normal = Vec3::UnitZ();  // a → b
};

// The advancement loop for a distance function gap(t) of a pair in the motions of a and b.
// `directional`: both sets are convex, so the bound along the current normal is valid.
template <class GapAt>
ToiResult advance(const GapAt& gap_at, bool directional, const ToiBody& a, const ToiBody& b,
                  double t0, double t1, const ToiOptions& options) {
  const double ra = body_radius(a), rb = body_radius(b);
  const Vec3 v_rel = a.motion.linear_velocity - b.motion.linear_velocity;
  // Direction-free bound (paper 2, eq. 4.7): any point of a moves relative to any point of b no
  // faster than this, so δ cannot decrease faster either.
  const double mu_any = v_rel.norm() + rotation_term(a, ra, nullptr) + rotation_term(b, rb, nullptr);
  ToiResult result;
  double t = t0;
  for (;;) {
    const Gap d = gap_at(t);
    ++result.iterations;
    result.distance = d.distance;
    result.normal = d.normal;
    const double gap = d.distance - options.target;
    if (gap <= options.tolerance) {
      result.toi = t;
      return result;
    }
    // The closest-point normal is only meaningful away from touching (δ ≈ 0 leaves it
    // arbitrary for some pairs); fall back to the direction-free bound there.
    double mu = mu_any;
    if (directional && std::abs(d.distance) > 1e-9) {
      const Vec3& n = d.normal;
      mu = std::max(0.0, n.dot(v_rel)) + rotation_term(a, ra, &n) + rotation_term(b, rb, &n);
    }
    if (!(mu > 0)) return result;  // nothing approaches along n: δ >= gap_n stays above target
    const double step = gap / mu;
    if (t + step > t1) return result;
    if (result.iterations >= options.max_iterations) {
      // Safe to stop here (no contact before t + step), but not converged.
      result.toi = t + step;
      result.converged = false;
      return result;
    }
    t += step;
  }
}

bool is_still(const RigidMotion& m) {
  return m.linear_velocity.squaredNorm() == 0 && m.angular_velocity.squaredNorm() == 0;
}

// A convex body against a mesh that does not move: the mesh is its triangles, each a convex set,
// so each triangle the swept body may reach gets the directional bound (a fast body sliding
// along a mesh floor would otherwise creep under the direction-free bound). Triangles are
// visited in the BVH's fixed order; the earliest TOI wins and shortens the later searches.
ToiResult convex_against_still_mesh(const ToiBody& body, const ToiBody& mesh, bool mesh_is_a,
                                    double t0, double t1, const ToiOptions& options) {
  const TriangleMesh& m = *mesh.shape->mesh;
  const Pose mesh_pose = mesh.shape_pose(t0);
  // Every point of the body stays within its radius of the centre's path segment.
  const Vec3 c0 = body.motion.at(t0).position, c1 = body.motion.at(t1).position;
  const double reach = body_radius(body) + std::max(0.0, options.target) + options.tolerance;
  Aabb world{c0.cwiseMin(c1), c0.cwiseMax(c1)};
  world = world.inflated(reach);
  Aabb local{Vec3::Constant(std::numeric_limits<double>::infinity()),
             Vec3::Constant(-std::numeric_limits<double>::infinity())};
  for (int k = 0; k < 8; ++k) {
    const Vec3 corner((k & 1) ? world.max.x() : world.min.x(), (k & 2) ? world.max.y() : world.min.y(),
                      (k & 4) ? world.max.z() : world.min.z());
    local.grow(mesh_pose.inverse_apply(corner));
  }
  std::vector<int> triangles;
  m.bvh.query(local, [&](int tri) { triangles.push_back(tri); });

  ToiResult best;
  best.distance = std::numeric_limits<double>::infinity();
  double t_end = t1;
  for (int tri : triangles) {
    const std::array<int, 3>& f = m.triangles[tri];
    const ConvexSupport triangle = make_triangle_support(
        mesh_pose.apply(m.vertices[f[0]]), mesh_pose.apply(m.vertices[f[1]]), mesh_pose.apply(m.vertices[f[2]]));
    auto gap_at = [&](double t) {
      const ConvexSupport s = make_convex_support(*body.shape, body.shape_pose(t));
      const ConvexDistance d = mesh_is_a ? convex_signed_distance(triangle, s)
                                         : convex_signed_distance(s, triangle);
      return Gap{d.distance, d.normal};
    };
    const ToiResult r = mesh_is_a ? advance(gap_at, true, mesh, body, t0, t_end, options)
                                  : advance(gap_at, true, body, mesh, t0, t_end, options);
    best.iterations += r.iterations;
    if (r.toi && (!best.toi || *r.toi < *best.toi)) {
      best.toi = r.toi;
      best.distance = r.distance;
      best.normal = r.normal;
      best.converged = r.converged;
      t_end = *r.toi;
    }
  }
  if (!best.toi) {
    // No triangle within reach gets there: report the distance at t1 for information.
    const std::optional<DistanceResult> d =
        signed_distance(mesh_is_a ? *mesh.shape : *body.shape,
                        mesh_is_a ? mesh_pose : body.shape_pose(t1),
                        mesh_is_a ? *body.shape : *mesh.shape,
                        mesh_is_a ? body.shape_pose(t1) : mesh_pose);
    if (d) {
      best.distance = d->distance;
      best.normal = d->normal;
    }
  }
  return best;
}

}  // namespace

ToiResult conservative_advancement_toi(const ToiBody& a, const ToiBody& b, double t0, double t1,
                                       const ToiOptions& options) {
  IMPETUS_ASSERT(a.shape != nullptr && b.shape != nullptr, "TOI bodies need shapes");
  IMPETUS_ASSERT(options.tolerance > 0, "TOI tolerance must be positive");
  const bool mesh_a = a.shape->type == ShapeType::Mesh, mesh_b = b.shape->type == ShapeType::Mesh;
  if (mesh_a != mesh_b) {
    const ToiBody& mesh = mesh_a ? a : b;
    const ToiBody& other = mesh_a ? b : a;
    if (other.shape->is_convex() && is_still(mesh.motion) && mesh.shape->mesh)
      return convex_against_still_mesh(other, mesh, mesh_a, t0, t1, options);
  }
  auto gap_at = [&](double t) {
    const std::optional<DistanceResult> d =
        signed_distance(*a.shape, a.shape_pose(t), *b.shape, b.shape_pose(t));
    IMPETUS_ASSERT(d.has_value(), "TOI needs a pair signed_distance supports");
    return d ? Gap{d->distance, d->normal} : Gap{std::numeric_limits<double>::infinity(), Vec3::UnitZ()};
  };
  // Planes are convex half-spaces: the directional bound holds for them too.
  return advance(gap_at, !mesh_a && !mesh_b, a, b, t0, t1, options);
}

ExtremeVertexDiagram build_centered_diagram(const Shape& shape, const Vec3& center_local) {
  IMPETUS_ASSERT(shape.type == ShapeType::Box || (shape.type == ShapeType::Convex && shape.hull),
                 "centred diagrams exist for boxes and convex hulls");
  ExtremeVertexDiagram diagram = shape.type == ShapeType::Box
                                     ? build_extreme_vertex_diagram(box_hull(shape.half_extents))
                                     : build_extreme_vertex_diagram(*shape.hull);
  // Translating the vertices leaves the face normals, hence the regions and arcs, unchanged.
  diagram.max_vertex_norm = 0;
  for (Vec3& v : diagram.vertices) {
    v -= center_local;
    diagram.max_vertex_norm = std::max(diagram.max_vertex_norm, v.norm());
  }
  return diagram;
}

ToiResult plane_time_of_impact(const ExtremeVertexDiagram& centered, const RigidMotion& motion,
                               const Vec3& normal, double offset, double t0, double t1,
                               const ToiOptions& options) {
  // Raising the plane by `target` turns "distance reaches target" into paper 3's contact.
  const PlaneToiResult hit = plane_toi(centered, motion, normal, offset + options.target, t0, t1);
  ToiResult result;
  result.iterations = hit.iterations;
  result.toi = hit.toi;
  result.normal = normal;
  const Pose pose = motion.at(hit.toi ? *hit.toi : t1);
  const int v = centered.locate(-pose.inverse_rotate(normal), std::max(hit.vertex, 0));
  result.distance = normal.dot(pose.apply(centered.vertices[v])) - offset;
  return result;
}

}  // namespace impetus
