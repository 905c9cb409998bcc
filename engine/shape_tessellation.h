#pragma once
// Triangle surfaces of the collision shapes, for drawing and export (report.html, glTF): every
// shape type as itself. Round shapes are approximated (a sphere's vertices lie on the sphere);
// boxes, hulls and meshes are exact. A plane becomes a square tile of a given half size.
#include <array>
#include <vector>

#include "collision/base/math.h"
#include "collision/shape/shape.h"

namespace impetus {

struct ShapeSurface {
  std::vector<Vec3> vertices;                 // body frame
  std::vector<std::array<int, 3>> triangles;  // CCW seen from outside
  /// Round surfaces (sphere, capsule, ellipsoid) want averaged vertex normals; the others
  /// want one normal per face.
  bool smooth = false;
};

/// The surface of `shape` in its body frame; closed for every type but the plane, whose tile
/// (2·plane_half_size wide, centred on the point of the plane nearest the origin) faces along
/// the plane's normal.
ShapeSurface tessellate_shape(const Shape& shape, double plane_half_size = 20.0);

}  // namespace impetus
