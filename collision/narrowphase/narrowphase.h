#pragma once
// Contact generation: one algorithm per shape-type pair, chosen from a single table
// (narrowphase.cpp). Each algorithm is in its own file (contact_<a>_<b>.cpp).
#include "collision/narrowphase/contact.h"
#include "collision/shape/shape.h"

namespace impetus {

/// Contact points between shape a at pose_a and shape b at pose_b. Points whose separation is
/// below `margin` (speculative contacts, margin >= 0) are reported; returns manifold.count > 0.
/// Normals point from a to b. Plane–plane and mesh–mesh give no contacts.
/// Deterministic: the same inputs give the same points in the same order.
bool collide(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b, double margin,
             Manifold& manifold);

}  // namespace impetus
