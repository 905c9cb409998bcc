#pragma once
// The random shape pairs of the FCL peer benchmark: per category, fixed-seed poses around the
// touching distance so that about half the pairs overlap. Shapes are impetus shapes; the FCL
// side converts them (fcl_geometry.h).
#include <cstdint>
#include <string>
#include <vector>

#include "collision/base/math.h"
#include "collision/shape/shape.h"

namespace impetus::peers {

struct ShapePair {
  Shape a;
  Shape b;
  Pose pose_a;
  Pose pose_b;
};

struct PairCategory {
  std::string name;  // "box_box", "convex_convex", "mesh_mesh", "sphere_sphere", ...
  std::vector<ShapePair> pairs;
  int triangles = 0;  // per mesh (mesh categories)
};

/// All categories with `count` pairs each (deterministic for a given seed).
std::vector<PairCategory> make_pair_categories(int count, std::uint64_t seed);

/// A closed, non-convex "bumpy sphere" of 20·4^level triangles (level 3: 1,280) around the
/// origin, mean radius `radius`.
Shape bumpy_sphere_mesh(double radius, int level);

}  // namespace impetus::peers
