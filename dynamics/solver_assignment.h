#pragma once
// Which island solver serves which island, step after step.
//
// An island's solver holds what it knows of that island's structure (orderings, symbolic
// count, the recorded elimination, which a solve replays while the structure repeats) and
// buffers of its size. Handed out by place in the island list, solvers passed between islands
// whenever one appeared or vanished before them, and met other islands' structures: the
// 10,000-box pile eliminated afresh what it could have replayed and regrew buffers sized for
// other islands. Here an island keeps the solver that served the island with the same key, its
// smallest body, on the last step; the other islands take the free solvers in index order (new
// ones past the end). The assignment depends on the island list alone, so on no thread count.
// (The caches change no result: the same bits as solvers handed out by place.)
#include <vector>

#include "dynamics/island.h"

namespace impetus {

class SolverAssignment {
 public:
  /// Assigns this step's islands (bodies ascending within each, as build_islands makes them);
  /// `body_count` bounds the bodies' indices.
  void assign(const std::vector<Island>& islands, int body_count);
  /// The solver of island i (after assign).
  int solver(int island) const { return solver_of_island_[island]; }
  /// Solvers in use so far (some may serve no island this step).
  int solver_count() const { return static_cast<int>(key_.size()); }
  /// True when solver j serves an island this step.
  bool serving(int j) const { return serving_[j] != 0; }

 private:
  std::vector<int> solver_of_island_;
  std::vector<int> key_;            // per solver: the smallest body of its island (-1: none yet)
  std::vector<int> solver_of_key_;  // per body: the solver keyed by it, else -1
  std::vector<char> serving_;
};

}  // namespace impetus
