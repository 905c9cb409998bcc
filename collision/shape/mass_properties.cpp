#include "collision/shape/mass_properties.h"

#include <Eigen/Eigenvalues>
#include <array>
#include <cmath>
#include <vector>

#include "collision/base/assert.h"

namespace impetus {
namespace {

// Fills the principal moments (ascending) and a right-handed set of principal axes. The sign of
// each of the first two axes is fixed (largest component positive) so that the same tensor
// always yields the same frame; the third is their cross product.
void set_principal(MassProperties* mp) {
  Eigen::SelfAdjointEigenSolver<Mat3> solver(mp->inertia);
  mp->principal_moments = solver.eigenvalues();
  Mat3 axes = solver.eigenvectors();
  for (int c = 0; c < 2; ++c) {
    int big = 0;
    for (int r = 1; r < 3; ++r) {
      if (std::abs(axes(r, c)) > std::abs(axes(big, c))) big = r;
    }
    if (axes(big, c) < 0) axes.col(c) = -axes.col(c);
  }
  axes.col(2) = axes.col(0).cross(axes.col(1));
  mp->principal_axes = axes;
}

// Solid with a diagonal inertia tensor about its centre (the origin of its frame).
MassProperties centred_solid(double volume, double density, const Vec3& inertia_per_mass) {
  MassProperties mp;
  mp.volume = volume;
  mp.mass = density * volume;
  mp.inertia = (mp.mass * inertia_per_mass).asDiagonal();
  set_principal(&mp);
  return mp;
}

// Capsule along z: a cylinder of radius r and height 2h plus two solid hemispheres.
// Each hemisphere (mass m_h) has its centroid 3r/8 from its flat face; about the axis through
// that face's centre perpendicular to z its moment is 2/5 m_h r² (half a sphere's), so about its
// own centroid 2/5 m_h r² − m_h (3r/8)², and shifted by the parallel-axis theorem to the capsule
// centre, a distance h + 3r/8 away: m_h (2/5 r² + h² + 3/4 h r).
MassProperties capsule(double r, double h, double density) {
  const double cylinder_volume = kPi * r * r * 2 * h;
  const double hemisphere_volume = 2.0 / 3.0 * kPi * r * r * r;
  const double m_c = density * cylinder_volume;
  const double m_h = density * hemisphere_volume;
  const double axial = 0.5 * m_c * r * r + 2 * (0.4 * m_h * r * r);
  const double transverse = m_c * (3 * r * r + 4 * h * h) / 12.0 +
                            2 * m_h * (0.4 * r * r + h * h + 0.75 * h * r);
  MassProperties mp;
  mp.volume = cylinder_volume + 2 * hemisphere_volume;
  mp.mass = m_c + 2 * m_h;
  mp.inertia = Vec3(transverse, transverse, axial).asDiagonal();
  set_principal(&mp);
  return mp;
}

// Exact volume, centroid and inertia of the solid bounded by a closed, outward-oriented triangle
// surface. Divergence theorem in its simplest discrete form: the solid is the signed sum of the
// tetrahedra (o, a, b, c) over the triangles, o a reference point. For one such tetrahedron with
// D = det[a−o, b−o, c−o] and edge vectors a, b, c taken from o:
//   volume D/6,  first moment D/24 (a + b + c),
//   second moment ∫ x xᵀ dV = D/120 (a aᵀ + b bᵀ + c cᵀ + s sᵀ), s = a + b + c
// (the canonical tetrahedron's covariance mapped affinely; Tonon 2004, J. Math. Stat. 1(1)).
// Taking o at the vertices' bounding-box centre keeps the terms small for offset meshes.
// The surface must be closed: for an open one the sum depends on o and means nothing (the scene
// loader only accepts dynamic bodies with closed surfaces). A surface wound inward (negative
// total volume) is treated as the same solid with its orientation flipped.
MassProperties polyhedron(const std::vector<Vec3>& vertices,
                          const std::vector<std::array<int, 3>>& triangles, double density) {
  MassProperties mp;
  if (vertices.empty() || triangles.empty()) return mp;
  Vec3 lo = vertices[0], hi = vertices[0];
  for (const Vec3& v : vertices) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  const Vec3 o = 0.5 * (lo + hi);

  double six_volume = 0;                 // Σ D
  Vec3 first = Vec3::Zero();             // Σ D (a + b + c)
  Mat3 second = Mat3::Zero();            // Σ D (a aᵀ + b bᵀ + c cᵀ + s sᵀ)
  for (const std::array<int, 3>& t : triangles) {
    const Vec3 a = vertices[t[0]] - o;
    const Vec3 b = vertices[t[1]] - o;
    const Vec3 c = vertices[t[2]] - o;
    const double d = a.dot(b.cross(c));
    const Vec3 s = a + b + c;
    six_volume += d;
    first += d * s;
    second += d * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
  }
  double volume = six_volume / 6.0;
  Vec3 moment = first / 24.0;
  Mat3 covariance = second / 120.0;
  if (volume < 0) {
    volume = -volume;
    moment = -moment;
    covariance = -covariance;
  }
  if (!(volume > 0)) {
    mp.center_of_mass = o;
    return mp;
  }
  const Vec3 c = moment / volume;  // centroid relative to o
  // Covariance about the centroid, then I = tr(C) 𝟙 − C, times density.
  const Mat3 central = covariance - volume * (c * c.transpose());
  mp.volume = volume;
  mp.mass = density * volume;
  mp.center_of_mass = o + c;
  mp.inertia = density * (central.trace() * Mat3::Identity() - central);
  set_principal(&mp);
  return mp;
}

}  // namespace

MassProperties compute_mass_properties(const Shape& shape, double density) {
  switch (shape.type) {
    case ShapeType::Sphere: {
      const double r = shape.radius;
      return centred_solid(4.0 / 3.0 * kPi * r * r * r, density, Vec3::Constant(0.4 * r * r));
    }
    case ShapeType::Capsule:
      return capsule(shape.radius, shape.half_length, density);
    case ShapeType::Box: {
      // Half extents (a, b, c): full sides 2a, 2b, 2c, so I_xx = m (4b² + 4c²)/12.
      const Vec3 e2 = shape.half_extents.cwiseProduct(shape.half_extents);
      const double volume = 8 * shape.half_extents.prod();
      return centred_solid(volume, density,
                           Vec3(e2.y() + e2.z(), e2.z() + e2.x(), e2.x() + e2.y()) / 3.0);
    }
    case ShapeType::Ellipsoid: {
      const Vec3 r2 = shape.radii.cwiseProduct(shape.radii);
      const double volume = 4.0 / 3.0 * kPi * shape.radii.prod();
      return centred_solid(volume, density,
                           Vec3(r2.y() + r2.z(), r2.z() + r2.x(), r2.x() + r2.y()) / 5.0);
    }
    case ShapeType::Convex:
      IMPETUS_ASSERT(shape.hull != nullptr, "convex shape without a hull");
      return polyhedron(shape.hull->vertices, shape.hull->triangles, density);
    case ShapeType::Mesh:
      IMPETUS_ASSERT(shape.mesh != nullptr, "mesh shape without a mesh");
      return polyhedron(shape.mesh->vertices, shape.mesh->triangles, density);
    case ShapeType::Plane:
      break;
  }
  return MassProperties{};
}

MassProperties compute_mass_properties_with_mass(const Shape& shape, double mass) {
  MassProperties mp = compute_mass_properties(shape, 1.0);
  if (shape.type == ShapeType::Plane || !(mp.volume > 0)) {
    // No volume to spread the mass over: the inertia stays zero (static use only).
    if (shape.type != ShapeType::Plane) mp.mass = mass;
    return mp;
  }
  const double density = mass / mp.volume;
  mp.mass = mass;
  mp.inertia *= density;
  mp.principal_moments *= density;
  return mp;
}

}  // namespace impetus
