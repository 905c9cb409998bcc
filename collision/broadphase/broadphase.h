#pragma once
// Broadphase: the step's overlapping pairs come from a parallel sweep and prune of our own; the
// queries (ray casts, overlap tests) walk Bullet's btDbvtBroadphase trees (the only Bullet code
// impetus uses). This header is Bullet-free; broadphase.cpp is the one file that includes Bullet.
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
  /// All (lower, higher) index pairs whose boxes overlap (closed boxes: touching counts), not
  /// both static, sorted lexicographically. Found on up to `threads` threads (0 = all cores);
  /// the result never depends on the thread count or on the history of adds and updates.
  void compute_pairs(std::vector<std::pair<int, int>>& out, int threads = 1);

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
