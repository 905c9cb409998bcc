// Capsule–capsule: closest points of the core segments (closed form, paper 2, eq. 3.1). Nearly
// parallel segments touch along an interval: its two ends give two points so that a capsule
// lying on another does not rock on one point. Capsules crossing at a small angle touch at one
// point, but a small turn moves that point to the far end of their common stretch: the ends of
// the stretch get speculative points of their own (stretch_end).
#include <algorithm>

#include "collision/narrowphase/contact_pairs.h"
#include "collision/distance/primitive_distance.h"
#include "collision/distance/segment_closest.h"

namespace impetus {
namespace {

// sin of the angle below which two capsule axes count as parallel.
constexpr double kParallelSin = 1e-3;
// sin of the angle (30°) below which the ends of the common stretch get points (stretch_end).
// The witness of an end ball lies inside its capsule by up to r (1 − cos θ) for axes θ apart
// (13% of r at 30°); steeper crossings have their ends far from the other core anyway. In
// showcase_v1 a limit of 5° left capsules 5.6 mm deep in each other, 15° 4.3 mm, 30° 2.3 mm.
constexpr double kStretchSin = 0.5;

void add_point(const DistanceResult& d, std::uint32_t id, double margin, Manifold& m, bool& any) {
  if (add_distance_point(d, margin, m, id)) any = true;
}

// Core points (on the segments) of a rounded-segment distance result.
Vec3 core_a(const DistanceResult& d, double ra) { return d.point_a - ra * d.normal; }
Vec3 core_b(const DistanceResult& d, double rb) { return d.point_b + rb * d.normal; }

// One end of the stretch along u where both cores exist, on the side given by `sign` (−1: low
// end, +1: high end): the core endpoint that bounds the stretch there, as a ball against the
// other core. Its distance is the true distance of that end ball to the other capsule, so the
// point is a valid non-penetration condition on its own (speculative while positive); a
// capsule lying across another at 5–20° used to swing its free end 11–19 mm deep in one step
// (showcase_v1, issue 11 item 5). False when the cores do not overlap along u.
bool stretch_end(const Vec3& a0, const Vec3& a1, double ra, const Vec3& b0, const Vec3& b1,
                 double rb, const Vec3& u, double sign, DistanceResult& out) {
  const double a_first = sign * a0.dot(u), a_second = sign * a1.dot(u);
  const double b_first = sign * b0.dot(u), b_second = sign * b1.dot(u);
  // Along sign·u the stretch ends at the smaller of the two cores' far ends.
  const double a_end = std::max(a_first, a_second), b_end = std::max(b_first, b_second);
  const double a_start = std::min(a_first, a_second), b_start = std::min(b_first, b_second);
  if (std::min(a_end, b_end) <= std::max(a_start, b_start)) return false;
  if (a_end <= b_end) {
    const Vec3& e = a_first >= a_second ? a0 : a1;
    out = rounded_segments_distance(e, e, ra, b0, b1, rb);
  } else {
    const Vec3& e = b_first >= b_second ? b0 : b1;
    out = rounded_segments_distance(a0, a1, ra, e, e, rb);
  }
  return true;
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
  const DistanceResult closest = rounded_segments_distance(a0, a1, a.radius, b0, b1, b.radius);
  if (!(closest.distance < margin)) return false;
  if (!(la > 0 && lb > 0) || d1.cross(d2).norm() > kStretchSin * la * lb) {
    add_point(closest, 0, margin, m, any);
    return any;
  }
  // The stretch where both cores exist is measured along the bisector of their axes (the same
  // for a against b and b against a). Its end points that lie within `near` of the closest
  // points are that point itself: the closest point then takes the end's feature id, so that
  // its warm start follows the end it sits at.
  const Vec3 ua = d1 / la, ub = d2 / lb;
  const Vec3 u = (ua.dot(ub) >= 0 ? Vec3(ua + ub) : Vec3(ua - ub)).normalized();
  const double near = 0.1 * (std::min(la, lb) + std::min(a.radius, b.radius));
  const Vec3 ca = core_a(closest, a.radius), cb = core_b(closest, b.radius);
  DistanceResult ends[2];
  bool kept[2] = {false, false};
  std::uint32_t closest_id = 0;
  for (int e = 0; e < 2; ++e) {
    if (!stretch_end(a0, a1, a.radius, b0, b1, b.radius, u, e == 0 ? -1.0 : 1.0, ends[e])) continue;
    const double apart =
        std::max((core_a(ends[e], a.radius) - ca).norm(), (core_b(ends[e], b.radius) - cb).norm());
    if (apart < near) {
      if (closest_id == 0) closest_id = static_cast<std::uint32_t>(e + 1);
    } else {
      kept[e] = true;
    }
  }
  // Two ends closer than `near` to each other (a short stretch) are one point: the deeper one.
  if (kept[0] && kept[1] &&
      std::max((core_a(ends[0], a.radius) - core_a(ends[1], a.radius)).norm(),
               (core_b(ends[0], b.radius) - core_b(ends[1], b.radius)).norm()) < near) {
    kept[ends[0].distance <= ends[1].distance ? 1 : 0] = false;
  }
  // The closest point first: it carries the pair's best normal and depth.
  add_point(closest, closest_id, margin, m, any);
  for (int e = 0; e < 2; ++e) {
    if (kept[e]) add_point(ends[e], static_cast<std::uint32_t>(e + 1), margin, m, any);
  }
  return any;
}

}  // namespace impetus
