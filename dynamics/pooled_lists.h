#pragma once
// Many growable lists of ints that share one pool and are emptied together.
//
// Why not a vector per list: a list kept its own capacity between uses, so the memory held was
// the sum over lists of the longest each had ever been. The symbolic count of a big island
// (IslandBlockSolver::estimate_exact_ops) numbers its lists by elimination position, which moves
// from step to step, so every list grew in turn: the 10,000-box pile's count held 180 MB after
// 420 steps, and growing (1.5 MB in use at a time). Here the pool holds what one use needed at
// most; reset() keeps that capacity, so a use no bigger than before allocates nothing.
#include <cstddef>
#include <vector>

#include "collision/base/vector_growth.h"

namespace impetus {

class PooledLists {
 public:
  /// `lists` empty lists; the pool is emptied (its capacity kept).
  void reset(int lists) {
    pool_.clear();
    assign_growing(head_, lists, -1);
    assign_growing(tail_, lists, -1);
  }

  void push(int list, int value) {
    int c = tail_[list];
    if (c < 0 || pool_[c].count == kChunkItems) {
      const int fresh = static_cast<int>(pool_.size());
      pool_.push_back(Chunk{});
      if (c < 0) head_[list] = fresh;
      else pool_[c].next = fresh;
      tail_[list] = c = fresh;
    }
    pool_[c].item[pool_[c].count++] = value;
  }

  /// f(value) for the list's values in the order pushed. f may push to other lists (the pool
  /// may then move: chunks are found by index, never held by reference).
  template <class F>
  void for_each(int list, F&& f) const {
    for (int c = head_[list]; c >= 0; c = pool_[c].next) {
      for (int i = 0; i < pool_[c].count; ++i) f(pool_[c].item[i]);
    }
  }

  /// Chunks the pool can hold without allocating (for tests).
  std::size_t chunk_capacity() const { return pool_.capacity(); }

  /// Keeps the values for which keep(value) is true, in order; returns how many remain.
  template <class Keep>
  int filter(int list, Keep&& keep) {
    int kept = 0;
    int write = head_[list], write_at = 0;
    for (int c = head_[list]; c >= 0; c = pool_[c].next) {
      const int count = pool_[c].count;  // read before the writes below may lower it
      for (int i = 0; i < count; ++i) {
        const int value = pool_[c].item[i];
        if (!keep(value)) continue;
        if (write_at == kChunkItems) {
          pool_[write].count = kChunkItems;
          write = pool_[write].next;
          write_at = 0;
        }
        pool_[write].item[write_at++] = value;
        ++kept;
      }
    }
    if (write >= 0) {
      pool_[write].count = write_at;
      pool_[write].next = -1;  // later chunks are left unused until reset
      tail_[list] = write;
    }
    return kept;
  }

 private:
  static constexpr int kChunkItems = 14;  // with next and count: 64 bytes a chunk
  struct Chunk {
    int next = -1;
    int count = 0;
    int item[kChunkItems];
  };
  std::vector<Chunk> pool_;
  std::vector<int> head_, tail_;  // per list: first and last chunk, −1 when it has none
};

}  // namespace impetus
