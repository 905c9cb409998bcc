#include "dynamics/solver_assignment.h"

namespace impetus {

void SolverAssignment::assign(const std::vector<Island>& islands, int body_count) {
  const int n = static_cast<int>(islands.size());
  const int solvers = solver_count();
  solver_of_island_.assign(n, -1);
  serving_.assign(solvers, 0);
  // Bodies removed since (a smaller world) leave keys past the end: they match nothing.
  if (static_cast<int>(solver_of_key_.size()) < body_count) solver_of_key_.resize(body_count, -1);
  for (int i = 0; i < n; ++i) {
    const int key = islands[i].bodies.front();
    const int j = solver_of_key_[key];
    if (j < 0 || key_[j] != key) continue;
    solver_of_island_[i] = j;
    serving_[j] = 1;
  }
  int free = 0;
  for (int i = 0; i < n; ++i) {
    if (solver_of_island_[i] >= 0) continue;
    while (free < solver_count() && serving_[free]) ++free;
    if (free == solver_count()) {
      key_.push_back(-1);
      serving_.push_back(0);
    }
    const int old_key = key_[free];
    if (old_key >= 0 && old_key < static_cast<int>(solver_of_key_.size()) && solver_of_key_[old_key] == free)
      solver_of_key_[old_key] = -1;
    const int key = islands[i].bodies.front();
    key_[free] = key;
    solver_of_key_[key] = free;
    solver_of_island_[i] = free;
    serving_[free] = 1;
  }
}

}  // namespace impetus
