#pragma once
// Islands: dynamic bodies connected through contacts and joints (static and kinematic bodies do
// not connect islands). Built with union-find; islands, and the bodies, contacts and joints in
// each, come out sorted by index so that everything after is independent of discovery order.
#include <array>
#include <vector>

namespace impetus {

struct Island {
  std::vector<int> bodies;    // dense body indices, ascending (dynamic bodies only)
  std::vector<int> contacts;  // indices into the contact list, ascending
  std::vector<int> joints;    // indices into the joint list, ascending
};

/// Union-find storage of build_islands, kept by the caller between steps, and one output:
/// `position`, every body's index in its island's `bodies` (-1 for bodies in no island). One
/// table serves all the islands of a build, so a solver finds a constraint's bodies in its
/// island without a search (IslandBlockSolver::solve_velocities).
struct IslandScratch {
  std::vector<int> parent, island_of, position;
  // Islands past a build's count, kept with their lists' capacity for later builds: shrinking
  // the list destroyed them, and the next build that had more islands allocated their lists
  // anew (a settling pile's island count moves every step).
  std::vector<Island> spare;
};

/// `dynamic[i]` tells which bodies are unknowns; `contact_bodies` / `joint_bodies` give each
/// constraint's two body indices (-1 = world). Constraints with no dynamic body are dropped.
/// Islands are ordered by their smallest body index. `islands` is rewritten in place: its
/// vectors keep their capacity, so a step whose islands are no bigger than before allocates
/// nothing.
void build_islands(const std::vector<char>& dynamic,
                   const std::vector<std::array<int, 2>>& contact_bodies,
                   const std::vector<std::array<int, 2>>& joint_bodies, IslandScratch& scratch,
                   std::vector<Island>& islands);

/// The same, returning a new list (tests and one-off callers).
std::vector<Island> build_islands(const std::vector<char>& dynamic,
                                  const std::vector<std::array<int, 2>>& contact_bodies,
                                  const std::vector<std::array<int, 2>>& joint_bodies);

}  // namespace impetus
