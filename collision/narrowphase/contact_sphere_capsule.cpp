// Sphere–capsule: the sphere centre against the capsule's core segment (closed form).
#include "collision/narrowphase/contact_pairs.h"
#include "collision/distance/primitive_distance.h"

namespace impetus {

bool collide_sphere_capsule(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                            double margin, Manifold& m) {
  Vec3 axis = pb.rotate(Vec3(0, 0, b.half_length));
  DistanceResult d = rounded_segments_distance(pa.position, pa.position, a.radius,
                                               pb.position - axis, pb.position + axis, b.radius);
  return add_distance_point(d, margin, m);
}

}  // namespace impetus
