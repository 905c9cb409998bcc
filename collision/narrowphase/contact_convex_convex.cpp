// Any convex pair without a closed form (ellipsoids, convex hulls, capsule/box–hull, ...):
// GJK/EPA give the normal and the deepest (or closest) points; when both shapes offer a face or
// edge along that normal (polytopes, capsule cores) the reference face is clipped for a full
// manifold, so that hulls resting on hulls get their support polygon, not one point.
#include "collision/narrowphase/contact_pairs.h"
#include "collision/distance/convex_signed_distance.h"
#include "collision/shape/convex_support.h"
#include "collision/narrowphase/face_manifold.h"

namespace impetus {

bool collide_convex_convex(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                           double margin, Manifold& m) {
  ConvexDistance d = convex_signed_distance(make_convex_support(a, pa),
                                            make_convex_support(b, pb), margin);
  if (!(d.distance < margin)) return false;
  SupportFace fa;
  SupportFace fb;
  support_face(a, pa, d.normal, fa);
  support_face(b, pb, -d.normal, fb);
  std::array<ContactPoint, 4> points;
  int n = convex_contact_points(fa, fb, d.normal, d.distance, d.point_a, d.point_b, margin,
                                points);
  for (int i = 0; i < n; ++i) m.add(points[i]);
  return n > 0;
}

}  // namespace impetus
