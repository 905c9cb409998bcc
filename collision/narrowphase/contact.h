#pragma once
#include <array>
#include <cstdint>

#include "collision/base/math.h"

namespace impetus {

/// One contact point between shapes a and b, in world coordinates.
struct ContactPoint {
  Vec3 normal = Vec3::UnitZ();   // unit, pointing from a towards b
  Vec3 point_a = Vec3::Zero();   // on a's surface (deepest point of a into b when overlapping)
  Vec3 point_b = Vec3::Zero();   // on b's surface
  double separation = 0;         // (point_b − point_a)·normal: < 0 penetration, > 0 gap
  std::uint32_t feature_id = 0;  // stable across steps while the same features touch (warm start)
};

inline constexpr int kMaxManifoldPoints = 8;

/// The contact points of one shape pair. Convex pairs give one normal and up to 4 points; mesh
/// pairs may give up to kMaxManifoldPoints points with their own normals.
struct Manifold {
  std::array<ContactPoint, kMaxManifoldPoints> points;
  int count = 0;

  void clear() { count = 0; }
  bool full() const { return count == kMaxManifoldPoints; }
  void add(const ContactPoint& p) {
    if (count < kMaxManifoldPoints) points[count++] = p;
  }
};

}  // namespace impetus
