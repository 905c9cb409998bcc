#include "collision/narrowphase/contact_ellipsoid_ellipsoid.h"

#include <cmath>

#include "collision/base/assert.h"
#include "collision/distance/ellipsoid_closest_approach.h"

namespace impetus {

// Paper 1 resolves overlap along the centre line: b must move by d − δ along n (δ = ‖pb − pa‖)
// to touch a. The solver instead pushes along the contact normal N = ∇e_a(x)/‖∇e_a(x)‖, so the
// contact reports that motion's component along N: separation = (δ − d)(n·N). Because the
// tangent plane at the touching point separates the centres, d (n·N) = h_a + h_b, the support
// distances of a along N and of b along −N; hence separation = N·(pb − pa) − h_a − h_b, the gap
// between the two ellipsoids' supporting slabs along N (exact for spheres; a first-order
// estimate of the gap along N otherwise; |separation| ≤ |δ − d| since n·N ≤ 1).
bool collide_ellipsoid_ellipsoid(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                                 double margin, Manifold& m) {
  IMPETUS_ASSERT(a.type == ShapeType::Ellipsoid && b.type == ShapeType::Ellipsoid,
                 "collide_ellipsoid_ellipsoid needs two ellipsoids");
  const Vec3 delta = pb.position - pa.position;
  const double centre_distance = delta.norm();

  // Early out without solving: d ≤ d_max = (largest radius of a) + (largest of b) and
  // h_a + h_b ≥ (smallest radius of a) + (smallest of b), so for δ > d_max the separation
  // (δ/d − 1)(h_a + h_b) is at least (δ/d_max − 1)·(r_min,a + r_min,b).
  const double d_max = a.radii.maxCoeff() + b.radii.maxCoeff();
  const double support_min = a.radii.minCoeff() + b.radii.minCoeff();
  if (centre_distance > d_max && (centre_distance / d_max - 1.0) * support_min >= margin) {
    return false;
  }

  ClosestApproachResult r = ellipsoid_closest_approach(a.radii, pa, b.radii, pb);
  if (!std::isfinite(r.distance) || !r.normal.allFinite()) return false;
  const double separation = (centre_distance - r.distance) * r.direction.dot(r.normal);
  if (separation >= margin) return false;

  ContactPoint cp;
  cp.normal = r.normal;
  cp.point_a = r.contact_point;  // on a's surface
  // The touching point of b, carried back with b from pa + d·n to its actual centre.
  cp.point_b = r.contact_point - (r.distance - centre_distance) * r.direction;
  cp.separation = separation;
  cp.feature_id = 0;
  m.add(cp);
  return true;
}

}  // namespace impetus
