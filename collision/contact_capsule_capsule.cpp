// Capsule–capsule: closest points of the core segments (closed form, paper 2, eq. 3.1). Nearly
// parallel segments touch along an interval: its two ends give two points so that a capsule
// lying on another does not rock on one point.
#include <algorithm>

#include "collision/contact_pairs.h"
#include "collision/primitive_distance.h"
#include "collision/segment_closest.h"

namespace impetus {
namespace {

// sin of the angle below which two capsule axes count as parallel.
constexpr double kParallelSin = 1e-3;

void add_point(const DistanceResult& d, std::uint32_t id, double margin, Manifold& m, bool& any) {
  if (!(d.distance < margin)) return;
  ContactPoint c;
  c.normal = d.normal;
  c.point_a = d.point_a;
  c.point_b = d.point_b;
  c.separation = d.distance;
  c.feature_id = id;
  m.add(c);
  any = true;
}

}  // namespace

bool collide_capsule_capsule(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                             double margin, Manifold& m) {
  Vec3 axis_a = pa.rotate(Vec3(0, 0, a.half_length));
  Vec3 axis_b = pb.rotate(Vec3(0, 0, b.half_length));
  Vec3 a0 = pa.position - axis_a, a1 = pa.position + axis_a;
  Vec3 b0 = pb.position - axis_b, b1 = pb.position + axis_b;
  bool any = false;

  Vec3 d1 = a1 - a0;
  Vec3 d2 = b1 - b0;
  double la = d1.norm();
  double lb = d2.norm();
  if (la > 0 && lb > 0 && d1.cross(d2).norm() <= kParallelSin * la * lb) {
    // Parameter interval on a's axis where both segments exist.
    Vec3 u = d1 / la;
    double t0 = (b0 - a0).dot(u);
    double t1 = (b1 - a0).dot(u);
    double lo = std::max(0.0, std::min(t0, t1));
    double hi = std::min(la, std::max(t0, t1));
    if (hi - lo > 1e-6 * (la + lb)) {
      DistanceResult first = rounded_segments_distance(a0 + lo * u, a0 + lo * u, a.radius, b0, b1,
                                                       b.radius);
      if (first.distance < margin) {
        DistanceResult second = rounded_segments_distance(a0 + hi * u, a0 + hi * u, a.radius, b0,
                                                          b1, b.radius);
        // Two results whose normals disagree (round-off near a coaxial overlap) would pull
        // apart; the second point takes the first one's normal.
        if (second.normal.dot(first.normal) < 0.5) {
          Vec3 p = a0 + hi * u;
          Vec3 q = closest_point_on_segment(p, b0, b1);
          second.normal = first.normal;
          second.distance = (q - p).dot(first.normal) - a.radius - b.radius;
          second.point_a = p + a.radius * first.normal;
          second.point_b = second.point_a + second.distance * first.normal;
        }
        add_point(first, 1, margin, m, any);
        add_point(second, 2, margin, m, any);
        return any;
      }
      return false;
    }
  }
  add_point(rounded_segments_distance(a0, a1, a.radius, b0, b1, b.radius), 0, margin, m, any);
  return any;
}

}  // namespace impetus
