// Island solvers follow islands (dynamics/solver_assignment.h): against a plain map-based
// model of the rule on random island lists, and the case it is for, an island appearing before
// others in the list.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "dynamics/solver_assignment.h"

namespace impetus {
namespace {

Island island_of(std::vector<int> bodies) {
  Island island;
  std::sort(bodies.begin(), bodies.end());
  island.bodies = bodies;
  return island;
}

TEST(SolverAssignment, IslandsKeepTheirSolversWhenAnIslandAppearsOrVanishesBeforeThem) {
  SolverAssignment a;
  a.assign({island_of({5, 6}), island_of({9})}, 20);
  EXPECT_EQ(a.solver(0), 0);
  EXPECT_EQ(a.solver(1), 1);
  // A new island with a smaller body comes first in the list: the others keep theirs.
  a.assign({island_of({1, 2}), island_of({5, 6, 7}), island_of({9})}, 20);
  EXPECT_EQ(a.solver(0), 2);
  EXPECT_EQ(a.solver(1), 0);
  EXPECT_EQ(a.solver(2), 1);
  // The island keyed 5 vanishes (body 5 asleep, say): 9 keeps its solver, the freed one waits.
  a.assign({island_of({1, 2}), island_of({9, 12})}, 20);
  EXPECT_EQ(a.solver(0), 2);
  EXPECT_EQ(a.solver(1), 1);
  EXPECT_FALSE(a.serving(0));
  // A newcomer takes the free solver.
  a.assign({island_of({1, 2}), island_of({3}), island_of({9, 12})}, 20);
  EXPECT_EQ(a.solver(1), 0);
  EXPECT_EQ(a.solver_count(), 3);
}

TEST(SolverAssignment, RandomIslandListsFollowTheRuleOfAMapModel) {
  // The model: a map from key to solver, kept for islands whose key stays, and the free solvers
  // taken lowest first by the islands with new keys, in list order.
  std::mt19937_64 rng(11);
  constexpr int kBodies = 60;
  SolverAssignment a;
  std::map<int, int> solver_of_key;   // model: keys of last step's islands → their solvers
  std::vector<int> key_of_solver;     // model: each solver's last key
  std::size_t most_islands = 0;
  for (int step = 0; step < 400; ++step) {
    // Random islands: a random subset of bodies cut into random groups, listed by smallest body.
    std::vector<int> bodies;
    for (int b = 0; b < kBodies; ++b)
      if (rng() % 3 != 0) bodies.push_back(b);
    std::shuffle(bodies.begin(), bodies.end(), rng);
    std::vector<Island> islands;
    for (std::size_t at = 0; at < bodies.size();) {
      const std::size_t size = 1 + rng() % (step % 50 < 25 ? 3 : 12);  // phases of many and few
      const std::size_t end = std::min(bodies.size(), at + size);
      islands.push_back(island_of(std::vector<int>(bodies.begin() + at, bodies.begin() + end)));
      at = end;
    }
    std::sort(islands.begin(), islands.end(),
              [](const Island& x, const Island& y) { return x.bodies.front() < y.bodies.front(); });
    a.assign(islands, kBodies);
    most_islands = std::max(most_islands, islands.size());

    std::map<int, int> next;
    std::set<int> used;
    std::vector<int> expected(islands.size(), -1);
    for (std::size_t i = 0; i < islands.size(); ++i) {
      auto kept = solver_of_key.find(islands[i].bodies.front());
      if (kept != solver_of_key.end()) {
        expected[i] = kept->second;
        used.insert(kept->second);
      }
    }
    for (std::size_t i = 0; i < islands.size(); ++i) {
      if (expected[i] >= 0) continue;
      int j = 0;
      while (used.count(j)) ++j;
      expected[i] = j;
      used.insert(j);
      if (j >= static_cast<int>(key_of_solver.size())) key_of_solver.resize(j + 1, -1);
    }
    for (std::size_t i = 0; i < islands.size(); ++i) {
      ASSERT_EQ(a.solver(static_cast<int>(i)), expected[i]) << "step " << step << " island " << i;
      key_of_solver[expected[i]] = islands[i].bodies.front();
      next[islands[i].bodies.front()] = expected[i];
    }
    // Solvers that served no island keep their key for a later island with it.
    for (auto [key, j] : solver_of_key)
      if (!used.count(j) && key_of_solver[j] == key) next[key] = j;
    solver_of_key = next;
    ASSERT_EQ(a.solver_count(), static_cast<int>(key_of_solver.size()));
    for (int j = 0; j < a.solver_count(); ++j) EXPECT_EQ(a.serving(j), used.count(j) == 1) << j;
  }
  // Never more solvers than the most islands of one step.
  EXPECT_EQ(a.solver_count(), static_cast<int>(most_islands));
}

}  // namespace
}  // namespace impetus
