#pragma once
// Software prefetch for passes over a big island's contacts. In a pile of thousands of bodies a
// contact and its two bodies lie far apart in the world's arrays (contacts ~270 bytes, bodies
// ~370), beyond the caches, so each pass waited on memory for every contact it read: the
// 10,000-box pile's position errors (IslandBlockSolver::block_position_error) cost twice as many
// samples per contact as the 1,000-box pile's. Asking for them a few contacts ahead changes
// no result: only when the bytes arrive.
#include <cstddef>
#include <vector>

#include "dynamics/contact_constraint.h"
#include "dynamics/rigid_body.h"

namespace impetus {

/// Contacts ahead of the one being read whose bodies are asked for; their contacts twice as far.
inline constexpr std::size_t kContactPrefetchDistance = 6;

inline void prefetch_lines(const void* p, int lines) {
  const char* at = static_cast<const char*>(p);
  for (int i = 0; i < lines; ++i) __builtin_prefetch(at + 64 * i);
}

/// Call before reading contact `i` of a list of `count` contacts (`ids[i]`, or contact i itself
/// when `ids` is null): asks for the contact 2d ahead (its normal, anchors, lever arms, slop and
/// targets: four lines) and for the two bodies of the contact d ahead (pose and velocities: two
/// lines each), which the call d contacts earlier asked for.
inline void prefetch_contact_ahead(const std::vector<ContactConstraint>& contacts,
                                   const std::vector<RigidBodySim>& bodies, const int* ids,
                                   std::size_t count, std::size_t i) {
  const std::size_t far = i + 2 * kContactPrefetchDistance, near = i + kContactPrefetchDistance;
  if (far < count) prefetch_lines(&contacts[ids != nullptr ? ids[far] : far], 4);
  if (near < count) {
    const ContactConstraint& c = contacts[ids != nullptr ? ids[near] : near];
    prefetch_lines(&bodies[c.body_a], 2);
    prefetch_lines(&bodies[c.body_b], 2);
  }
}

}  // namespace impetus
