#pragma once
// Broadphase over Bullet's btDbvtBroadphase (the only Bullet code impetus uses). This header is
// Bullet-free; broadphase.cpp is the one file that includes Bullet.
#include <memory>
#include <utility>
#include <vector>

#include "collision/base/aabb.h"

namespace impetus {

class Broadphase {
 public:
  Broadphase();
  ~Broadphase();
  Broadphase(const Broadphase&) = delete;
  Broadphase& operator=(const Broadphase&) = delete;

  /// Adds a proxy for user index `index` (dense, >= 0). Static proxies never pair with each other.
  void add(int index, const Aabb& box, bool is_static);
  void update(int index, const Aabb& box);
  void remove(int index);
  /// The box last given for `index` (add or update).
  const Aabb& box(int index) const;
  /// All overlapping (lower, higher) index pairs, sorted lexicographically — independent of the
  /// insertion history of Bullet's hashed pair cache.
  void compute_pairs(std::vector<std::pair<int, int>>& out);

  // Queries (World::ray_cast, overlap, shape_cast). Both give a superset of the exact answer,
  // sorted by index: the caller tests each candidate's shape exactly.
  /// Indices whose boxes overlap `box` (closed boxes: touching counts).
  void query_box(const Aabb& box, std::vector<int>& out) const;
  /// Indices whose boxes the segment from → to may cross (from ≠ to; each box taken `slack`
  /// larger, so that a segment grazing a face is never lost to rounding).
  void query_segment(const Vec3& from, const Vec3& to, double slack, std::vector<int>& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace impetus
