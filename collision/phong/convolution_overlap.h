#pragma once
// Overlap test of two closed triangle meshes, used to decide whether a point of the convolution
// (convolution_mesh.h) lies on the boundary of the Minkowski difference: q is on ∂D iff B
// translated by −q touches A without overlapping it, which is tested by pushing B a hair
// further out (along the outward normal at q) and asking whether the two solids still meet.
#include "collision/base/math.h"
#include "collision/shape/triangle_mesh.h"

namespace impetus {

/// True when closed mesh a (its own frame) and closed mesh b placed by `b_in_a` (b's frame →
/// a's frame) share a point: some pair of triangles crosses or touches (simultaneous BVH
/// descent, exact triangle–triangle distance), or, with the surfaces apart, one solid holds the
/// other (winding number of one vertex). Both meshes must have their BVH built.
bool meshes_overlap(const TriangleMesh& a, const TriangleMesh& b, const Pose& b_in_a);

}  // namespace impetus
