#pragma once
// Normal cones [axis, half-angle] for self-collision culling (papers/4, normal-cone-culling-
// cloth): Provot's merge (paper 4, eq. 1), the tight merge (paper 4, Alg. 1), Tang's continuous
// cone from the 3 Bézier control points of the moving normal (paper 4, eqs. 5–6) and the
// paper's 5 de Casteljau control points wrapped by the minimum-angle cone.
//
// A cone contains a direction d when angle(axis, d) ≤ angle. angle ≥ π means "every
// direction" (nothing is known). All constructions round outwards by kConePad so that the
// containment is certain despite round-off.
#include <span>

#include "collision/base/math.h"

namespace impetus {

inline constexpr double kConePad = 1e-12;

struct NormalCone {
  Vec3 axis = Vec3::UnitZ();  // unit
  double angle = 0;           // half-angle [rad], in [0, π]

  bool full() const { return angle >= kPi; }
};

/// Angle between two non-zero vectors in [0, π], accurate also near 0 and π (atan2 form).
double angle_between(const Vec3& a, const Vec3& b);

/// The degenerate cone of one direction (angle 0); the full cone for a zero vector.
NormalCone cone_of_direction(const Vec3& n);

/// Provot 1997 (paper 4, eq. 1): axis = normalise(x1 + x2), angle = β/2 + max(α1, α2).
NormalCone merge_provot(const NormalCone& c1, const NormalCone& c2);

/// Paper 4, Alg. 1: α = (β + α1 + α2)/2; keep a cone that contains the other, else the axis
/// on the arc x1 → x2 at angle α − α1 from x1 (sin-weighted, lines 13–14).
NormalCone merge_tight(const NormalCone& c1, const NormalCone& c2);

/// Minimum-angle cone containing the directions of `vectors` (exact: the optimal cap is
/// determined by two or three of the directions, all of which are tried, when it is narrower
/// than a hemisphere; wider sets get a valid, not necessarily minimal cone). Full cone when a
/// vector is zero. At most 16 vectors.
NormalCone minimum_cone(std::span<const Vec3> vectors);

/// Tang 2009 continuous cone of a triangle's normal over a step: the 3 control points n0,
/// (n0 + n1 − δ)/2, n1 merged with Provot's rule. n0, n1: unnormalised normals (b−a)×(c−a) at
/// t = 0 and 1; delta = (vb − va) × (vc − va) with v the displacements, so that the normal's
/// path is the quadratic n_t = n0 + (n1 − n0 − δ) t + δ t² (paper 4, eq. 5) whose Bernstein
/// control points these are. Both continuous cones are full unless narrower than π/2 (only a convex cone contains the
/// convex combinations of its control points, i.e. the whole path).
NormalCone continuous_cone_tang3(const Vec3& n0, const Vec3& n1, const Vec3& delta);

/// Paper 4, §4.2: the 5 control points of the two halves (de Casteljau at t = ½) wrapped by the
/// minimum-angle cone.
NormalCone continuous_cone_5pt(const Vec3& n0, const Vec3& n1, const Vec3& delta);

}  // namespace impetus
