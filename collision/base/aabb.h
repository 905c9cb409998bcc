#pragma once
#include <limits>

#include "collision/base/math.h"

namespace impetus {

/// Axis-aligned bounding box in some frame (usually world). Empty when min > max.
struct Aabb {
  Vec3 min = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 max = Vec3::Constant(-std::numeric_limits<double>::infinity());

  bool empty() const { return (min.array() > max.array()).any(); }
  void grow(const Vec3& p) {
    min = min.cwiseMin(p);
    max = max.cwiseMax(p);
  }
  void grow(const Aabb& b) {
    min = min.cwiseMin(b.min);
    max = max.cwiseMax(b.max);
  }
  Aabb inflated(double r) const { return Aabb{min.array() - r, max.array() + r}; }
  bool overlaps(const Aabb& b) const {
    return (min.array() <= b.max.array()).all() && (b.min.array() <= max.array()).all();
  }
  Vec3 center() const { return 0.5 * (min + max); }
  Vec3 extent() const { return max - min; }
};

}  // namespace impetus
