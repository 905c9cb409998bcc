#pragma once
#include "collision/base/math.h"
#include "collision/shape/shape.h"

namespace impetus {

/// Mass properties of a uniform-density solid in its shape's local frame.
struct MassProperties {
  double volume = 0;               // m³
  double mass = 0;                 // kg
  Vec3 center_of_mass = Vec3::Zero();  // local frame [m]
  Mat3 inertia = Mat3::Zero();     // about the centre of mass, local axes [kg m²]
  Vec3 principal_moments = Vec3::Zero();  // eigenvalues of `inertia`, ascending
  Mat3 principal_axes = Mat3::Identity(); // columns: unit eigenvectors (right-handed)
};

/// Exact mass properties for every finite shape: closed forms for primitives, polyhedral volume
/// integrals (divergence theorem over the triangles) for convex hulls and closed meshes.
/// Plane: all zero (only ever static).
MassProperties compute_mass_properties(const Shape& shape, double density);

/// Same, scaled so that the mass equals `mass` (density = mass / volume).
MassProperties compute_mass_properties_with_mass(const Shape& shape, double mass);

}  // namespace impetus
