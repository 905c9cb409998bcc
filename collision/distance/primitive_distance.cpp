#include "collision/distance/primitive_distance.h"

#include <cmath>

#include "collision/distance/segment_closest.h"

namespace impetus {
namespace {

// Normal when the cores touch: the closest-point direction is undefined, use the geometry.
Vec3 touching_normal(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1) {
  Vec3 da = a1 - a0;
  Vec3 db = b1 - b0;
  Vec3 centre = 0.5 * (b0 + b1) - 0.5 * (a0 + a1);
  Vec3 n = Vec3::Zero();
  Vec3 cross = da.cross(db);
  if (cross.squaredNorm() > 1e-20 * da.squaredNorm() * db.squaredNorm() &&
      cross.squaredNorm() > 0) {
    n = cross.normalized();
  } else {
    Vec3 axis = da.squaredNorm() >= db.squaredNorm() ? da : db;
    if (axis.squaredNorm() > 0) {
      Vec3 u = axis.normalized();
      Vec3 perp = centre - centre.dot(u) * u;
      n = perp.squaredNorm() > 1e-24 * (1 + centre.squaredNorm()) ? Vec3(perp.normalized())
                                                                   : any_orthogonal(u);
    } else {
      n = centre.squaredNorm() > 0 ? Vec3(centre.normalized()) : Vec3::UnitZ();
    }
  }
  if (n.dot(centre) < 0) n = -n;
  return n;
}

}  // namespace

DistanceResult rounded_segments_distance(const Vec3& a0, const Vec3& a1, double ra,
                                         const Vec3& b0, const Vec3& b1, double rb) {
  SegmentClosest c = closest_segment_segment(a0, a1, b0, b1);
  Vec3 d = c.q - c.p;
  double len = d.norm();
  double scale = (a1 - a0).norm() + (b1 - b0).norm() + ra + rb;
  DistanceResult r;
  r.normal = len > 1e-12 * scale ? Vec3(d / len) : touching_normal(a0, a1, b0, b1);
  if (!(len > 1e-12 * scale)) len = 0;
  r.distance = len - ra - rb;
  r.point_a = c.p + ra * r.normal;
  r.point_b = c.p + len * r.normal - rb * r.normal;
  return r;
}

DistanceResult sphere_box_distance(const Vec3& c, double r, const Vec3& h, const Pose& box_pose) {
  Vec3 local = box_pose.inverse_apply(c);
  Vec3 clamped = local.cwiseMax(-h).cwiseMin(h);
  Vec3 diff = local - clamped;
  double len = diff.norm();
  DistanceResult out;
  if (len > 1e-12 * (h.norm() + r)) {
    // Centre outside: nearest box point is the clamp; normal box → sphere is diff.
    Vec3 n_box = box_pose.rotate(diff / len);
    out.normal = -n_box;
    out.point_b = box_pose.apply(clamped);
    out.point_a = c - r * n_box;
    out.distance = len - r;
    return out;
  }
  // Centre inside (or on the surface): leave through the nearest face.
  int axis = 0;
  double best = h[0] - std::abs(local[0]);
  for (int k = 1; k < 3; ++k) {
    double d = h[k] - std::abs(local[k]);
    if (d < best) {
      best = d;
      axis = k;
    }
  }
  double sign = local[axis] < 0 ? -1.0 : 1.0;
  Vec3 face = local;
  face[axis] = sign * h[axis];
  Vec3 n_box = box_pose.rotate(sign * Vec3::Unit(axis));
  out.normal = -n_box;
  out.point_b = box_pose.apply(face);
  out.point_a = c - r * n_box;
  out.distance = -best - r;
  return out;
}

void plane_world(const Shape& plane, const Pose& pose, Vec3& normal, double& offset) {
  normal = pose.rotate(plane.normal);
  offset = plane.offset + normal.dot(pose.position);
}

DistanceResult plane_convex_distance(const Vec3& n, double offset, const Shape& b,
                                     const Pose& pose_b) {
  DistanceResult r;
  Vec3 s = support_world(b, pose_b, -n);
  r.normal = n;
  r.distance = n.dot(s) - offset;
  r.point_b = s;
  r.point_a = s - r.distance * n;
  return r;
}

DistanceResult flipped(const DistanceResult& r) {
  DistanceResult f;
  f.distance = r.distance;
  f.normal = -r.normal;
  f.point_a = r.point_b;
  f.point_b = r.point_a;
  return f;
}

}  // namespace impetus
