// Sphere–box: the centre clamped to the box (outside) or pushed through the nearest face
// (inside), in the box frame (closed form).
#include "collision/narrowphase/contact_pairs.h"
#include "collision/distance/primitive_distance.h"

namespace impetus {

bool collide_sphere_box(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                        double margin, Manifold& m) {
  DistanceResult d = sphere_box_distance(pa.position, a.radius, b.half_extents, pb);
  return add_distance_point(d, margin, m);
}

}  // namespace impetus
