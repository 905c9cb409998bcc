#pragma once
// Broadphase over Bullet's btDbvtBroadphase (the only Bullet code impetus uses). This header is
// Bullet-free; broadphase.cpp is the one file that includes Bullet.
#include <memory>
#include <utility>
#include <vector>

#include "collision/aabb.h"

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
  /// All overlapping (lower, higher) index pairs, sorted lexicographically — independent of the
  /// insertion history of Bullet's hashed pair cache.
  void compute_pairs(std::vector<std::pair<int, int>>& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace impetus
