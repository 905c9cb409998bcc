#pragma once
// Exact geometric predicates on double coordinates. The convex hull decides visibility with
// these so that coplanar and near-coplanar inputs (lattices, box corners, points on faces) can
// never produce an inconsistent (non-manifold or non-convex) triangulation.
#include "collision/base/math.h"

namespace impetus {

/// Exact sign of (b − a) × (c − a) · (p − a): +1 when p lies on the side that the normal of the
/// counter-clockwise triangle (a, b, c) points to, −1 on the other side, 0 when the four points
/// are exactly coplanar. A floating-point filter answers almost every call; only near-degenerate
/// cases fall back to exact expansion arithmetic. Inputs must be finite and well inside the
/// double range (|x| < 1e100), where no intermediate product can overflow or underflow.
int orient3d_sign(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& p);

}  // namespace impetus
