// World::destroy_body: a body leaves the world between steps. Everything that names it by its
// slot index goes with it (joints, cloth attachments, its broadphase proxy, contacts, pairs,
// warm-start impulses, the lazily built CCD diagram), and what rested on it or hung from it is
// woken so that it falls. The slot is left inert (world_impl.h) for the next create_body.
// Destruction is a shrink event: it may allocate and costs O(bodies + contacts); the step pays
// nothing for it. Its touching pairs are not forgotten here: the next step finds them gone and
// reports their End events (world_events.cpp).
#include <algorithm>

#include "engine/world_impl.h"

namespace impetus {

void World::destroy_body(BodyId id) {
  Impl& w = *impl_;
  w.remove_body(w.check_body(id, "destroy_body"));
}

void World::Impl::remove_body(int body) {
  // Wake what it touched: its own sleeping island (bodies resting on it belong to it), the
  // bodies of its broadphase pairs of the last step (a superset of its contacts, and the only
  // record of contacts with sleeping bodies, whose narrowphase was skipped), its joint partners.
  wake_island(body);
  for (const auto& [a, b] : pairs) {
    if (a == body) wake_island(b);
    if (b == body) wake_island(a);
  }
  // Its joints (remove_joint wakes their other body).
  bool removed_joint = false;
  for (int k = static_cast<int>(joints.size()) - 1; k >= 0; --k) {
    if (joints[k].body_a == body || joints[k].body_b == body) {
      remove_joint(k);
      removed_joint = true;
    }
  }
  if (removed_joint) rebuild_jointed_pairs();
  for (Cloth& cloth : cloths) cloth.sim.detach_body(body);

  // Every record of its contacts, keeping the others in their order.
  broadphase.remove(body);
  std::size_t kept = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    if (pairs[k].first == body || pairs[k].second == body) continue;
    pairs[kept] = pairs[k];
    if (k < manifolds.size()) manifolds[kept] = manifolds[k];
    if (k < pair_margins.size()) pair_margins[kept] = pair_margins[k];
    if (k < pair_skipped.size()) pair_skipped[kept] = pair_skipped[k];
    ++kept;
  }
  pairs.resize(kept);
  manifolds.resize(std::min(manifolds.size(), kept));
  pair_margins.resize(std::min(pair_margins.size(), kept));
  pair_skipped.resize(std::min(pair_skipped.size(), kept));
  std::erase_if(contacts, [body](const ContactConstraint& c) { return c.body_a == body || c.body_b == body; });
  std::erase_if(warm_cache, [body](const CachedImpulse& c) { return contact_key_has_body(c.key, body); });
  std::erase_if(slept_impulses,
                [body](const SleptImpulse& s) { return contact_key_has_body(s.impulse.key, body); });

  // The slot: inert until reused, its generation moved on so that the id is stale.
  bodies[body] = RigidBodySim{};
  shapes[body] = Shape{};
  bounding_radii[body] = 0;
  smallest_sizes[body] = 0;
  margins[body] = 0;
  names[body].clear();
  motions[body] = MotionType::Static;
  materials[body] = 0;
  masses[body] = 0;
  filters[body] = Filter{};
  sensors[body] = 0;
  forces[body] = Vec3::Zero();   // a force or target given before the destroy dies with it
  torques[body] = Vec3::Zero();
  cancel_target(body);
  if (static_cast<std::size_t>(body) < ccd_diagrams.size()) ccd_diagrams[body].reset();
  if (static_cast<std::size_t>(body) < sleep_time.size()) sleep_time[body] = 0;
  live[body] = 0;
  if (++body_generations[body] == 0) body_generations[body] = 1;  // 0 is the null id
  free_bodies.push_back(body);
  --live_bodies;
}

}  // namespace impetus
