#pragma once
// impetus shapes and poses as FCL geometry (sphere, capsule, box, convex from the hull's faces,
// triangle mesh as a BVHModel<OBBRSS>). The only files that include FCL are this one's .cpp and
// fcl_peer_main.cpp.
#include <memory>

#include <fcl/fcl.h>

#include "collision/base/math.h"
#include "collision/shape/shape.h"

namespace impetus::peers {

/// FCL geometry with the same local frame as `shape`; null for shapes FCL's side does not cover
/// here (ellipsoid, plane).
std::shared_ptr<fcl::CollisionGeometryd> to_fcl_geometry(const Shape& shape);

fcl::Transform3d to_fcl_transform(const Pose& pose);

}  // namespace impetus::peers
