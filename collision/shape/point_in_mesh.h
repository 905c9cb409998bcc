#pragma once
// Inside test for closed triangle meshes by the generalised winding number (the sum of the
// solid angles the triangles subtend at the point, over 4π): 1 inside, 0 outside, robust to
// the point lying near edges where ray-parity tests fail.
#include "collision/base/math.h"
#include "collision/shape/triangle_mesh.h"

namespace impetus {

/// Winding number of the mesh's (local-frame) triangles around local point x.
double mesh_winding_number(const TriangleMesh& mesh, const Vec3& x);

/// True when x (mesh local frame) is inside the closed mesh (winding number > 1/2).
inline bool point_in_mesh(const TriangleMesh& mesh, const Vec3& x) {
  return mesh_winding_number(mesh, x) > 0.5;
}

}  // namespace impetus
