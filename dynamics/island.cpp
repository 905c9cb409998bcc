#include "dynamics/island.h"

#include <numeric>
#include <utility>

namespace impetus {

namespace {

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];  // path halving
    i = parent[i];
  }
  return i;
}

void unite(std::vector<int>& parent, int a, int b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a == b) return;
  // The smaller index becomes the root: deterministic and makes the root the island's minimum.
  if (a < b) parent[b] = a; else parent[a] = b;
}

}  // namespace

void build_islands(const std::vector<char>& dynamic,
                   const std::vector<std::array<int, 2>>& contact_bodies,
                   const std::vector<std::array<int, 2>>& joint_bodies, IslandScratch& scratch,
                   std::vector<Island>& islands) {
  const int n = static_cast<int>(dynamic.size());
  std::vector<int>& parent = scratch.parent;
  parent.resize(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto is_dynamic = [&](int b) { return b >= 0 && dynamic[b]; };
  auto link = [&](const std::array<int, 2>& pair) {
    if (is_dynamic(pair[0]) && is_dynamic(pair[1])) unite(parent, pair[0], pair[1]);
  };
  for (const auto& pair : contact_bodies) link(pair);
  for (const auto& pair : joint_bodies) link(pair);

  std::vector<int>& island_of = scratch.island_of;
  island_of.assign(n, -1);
  int count = 0;
  for (int i = 0; i < n; ++i) {
    if (!dynamic[i]) continue;
    const int root = find_root(parent, i);
    if (island_of[root] < 0) island_of[root] = count++;
    island_of[i] = island_of[root];
  }
  while (static_cast<int>(islands.size()) > count) {
    scratch.spare.push_back(std::move(islands.back()));
    islands.pop_back();
  }
  while (static_cast<int>(islands.size()) < count) {
    if (scratch.spare.empty()) {
      islands.emplace_back();
    } else {
      islands.push_back(std::move(scratch.spare.back()));
      scratch.spare.pop_back();
    }
  }
  for (Island& island : islands) {
    island.bodies.clear();
    island.contacts.clear();
    island.joints.clear();
  }
  std::vector<int>& position = scratch.position;
  position.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    if (!dynamic[i]) continue;
    std::vector<int>& members = islands[island_of[i]].bodies;
    position[i] = static_cast<int>(members.size());
    members.push_back(i);
  }
  auto owner = [&](const std::array<int, 2>& pair) {
    return is_dynamic(pair[0]) ? island_of[pair[0]] : is_dynamic(pair[1]) ? island_of[pair[1]] : -1;
  };
  for (int k = 0; k < static_cast<int>(contact_bodies.size()); ++k) {
    int isl = owner(contact_bodies[k]);
    if (isl >= 0) islands[isl].contacts.push_back(k);
  }
  for (int k = 0; k < static_cast<int>(joint_bodies.size()); ++k) {
    int isl = owner(joint_bodies[k]);
    if (isl >= 0) islands[isl].joints.push_back(k);
  }
}

std::vector<Island> build_islands(const std::vector<char>& dynamic,
                                  const std::vector<std::array<int, 2>>& contact_bodies,
                                  const std::vector<std::array<int, 2>>& joint_bodies) {
  IslandScratch scratch;
  std::vector<Island> islands;
  build_islands(dynamic, contact_bodies, joint_bodies, scratch, islands);
  return islands;
}

}  // namespace impetus
