#pragma once
// Triangle meshes the tests build from closed forms (one copy for every test binary).
#include <memory>

#include "collision/shape/convex_hull.h"
#include "collision/shape/triangle_mesh.h"

namespace impetus::test {

/// The closed surface of the box with half extents h, as a triangle mesh with its BVH.
inline std::shared_ptr<const TriangleMesh> box_mesh(const Vec3& h) {
  auto mesh = std::make_shared<TriangleMesh>();
  const ConvexHull hull = box_hull(h);
  mesh->vertices = hull.vertices;
  mesh->triangles = hull.triangles;
  mesh->build_bvh();
  return mesh;
}

}  // namespace impetus::test
