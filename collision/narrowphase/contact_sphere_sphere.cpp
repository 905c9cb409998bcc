// Sphere–sphere: closed form along the centre line (rounded segments of zero length).
#include "collision/narrowphase/contact_pairs.h"
#include "collision/distance/primitive_distance.h"

namespace impetus {

bool collide_sphere_sphere(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                           double margin, Manifold& m) {
  DistanceResult d = rounded_segments_distance(pa.position, pa.position, a.radius, pb.position,
                                               pb.position, b.radius);
  return add_distance_point(d, margin, m);
}

}  // namespace impetus
