// Sphere–capsule: the sphere centre against the capsule's core segment (closed form).
#include "collision/narrowphase/contact_pairs.h"
#include "collision/distance/primitive_distance.h"

namespace impetus {

bool collide_sphere_capsule(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                            double margin, Manifold& m) {
  Vec3 axis = pb.rotate(Vec3(0, 0, b.half_length));
  DistanceResult d = rounded_segments_distance(pa.position, pa.position, a.radius,
                                               pb.position - axis, pb.position + axis, b.radius);
  if (!(d.distance < margin)) return false;
  ContactPoint c;
  c.normal = d.normal;
  c.point_a = d.point_a;
  c.point_b = d.point_b;
  c.separation = d.distance;
  m.add(c);
  return true;
}

}  // namespace impetus
