#pragma once
// Closed triangle meshes built from a description, for tests, benchmarks and embedders who want
// simple non-convex solids without an OBJ file: unions of grid cells (any voxel shape, e.g. a U)
// tori and subdivided icosahedra on ellipsoids. All are closed and outward-oriented, with BVHs built.
#include <array>
#include <functional>
#include <memory>

#include "collision/shape/triangle_mesh.h"

namespace impetus {

/// The union of the filled cells of an n[0] × n[1] × n[2] grid of cubes of size `cell`, grid
/// corner at `corner`: every cell face with an empty neighbour becomes two outward triangles.
/// Large faces are therefore tessellated into cells (the middle of a face has vertices whose
/// whole star is flat).
std::shared_ptr<TriangleMesh> voxel_mesh(const std::array<int, 3>& n, double cell,
                                         const Vec3& corner,
                                         const std::function<bool(int, int, int)>& filled);

/// The U used by the Phong tests and benchmark: [−1, 1]² × [−h, h] (h = half_depth) minus the
/// notch |x| < 0.5, y > −0.5 (open at +y), faces cut into cells of size `cell`.
std::shared_ptr<TriangleMesh> u_mesh(double cell, double half_depth = 0.5);

/// An icosahedron subdivided `levels` times (20·4^levels triangles, outward), its vertices on the
/// ellipsoid with semi-axes `radii`.
std::shared_ptr<TriangleMesh> icosphere_mesh(int levels, const Vec3& radii);

/// Torus about z (major radius `major`, minor `minor`), `around` × `across` quads, two triangles
/// each.
std::shared_ptr<TriangleMesh> torus_mesh(double major, double minor, int around, int across);

}  // namespace impetus
