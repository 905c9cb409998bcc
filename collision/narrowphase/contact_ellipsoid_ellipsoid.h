#pragma once
// Ellipsoid–ellipsoid contact from the closest approach distance along the centre line
// (paper 1, Choi 2019; see collision/distance/ellipsoid_closest_approach.h).
#include "collision/narrowphase/contact.h"
#include "collision/shape/shape.h"

namespace impetus {

/// One contact point between two ellipsoids (a.type == b.type == ShapeType::Ellipsoid).
/// The closest approach distance d along n = (pb − pa)/‖pb − pa‖ gives the penetration along the
/// centre line, d − ‖pb − pa‖; the touching configuration (b slid along n to distance d) gives
/// the contact point and the normal ∇e_a (paper 1, eq. 6). The reported point_a / point_b lie on
/// a's and b's surfaces at their current poses, separation = (point_b − point_a)·normal (< 0 when
/// overlapping), normal unit from a to b. A point is reported when separation < margin; returns
/// true when one was added to `m` (appended, m is not cleared).
bool collide_ellipsoid_ellipsoid(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                                 double margin, Manifold& m);

}  // namespace impetus
