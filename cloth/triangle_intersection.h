#pragma once
// Exact triangle–triangle intersection of closed triangles (touching counts), decided with
// exact orientation predicates (collision/base/robust_predicates.h), so that the self-intersection
// count of a cloth is a fact about its double coordinates, not a tolerance.
#include <array>
#include <vector>

#include "collision/base/math.h"

namespace impetus {

/// True when the closed triangles (a0, a1, a2) and (b0, b1, b2) have a point in common.
/// Exact for non-degenerate triangles, coplanar ones included.
bool triangles_intersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0,
                         const Vec3& b1, const Vec3& b2);

/// Number of intersecting pairs among triangles that share no vertex, by testing all pairs
/// (O(n²); a reference for tests — ClothSim counts through its BVH).
int count_self_intersections_brute_force(const std::vector<Vec3>& x,
                                         const std::vector<std::array<int, 3>>& triangles);

}  // namespace impetus
