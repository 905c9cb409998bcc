// Contact constraints from manifolds, warm starting, and the solver phase of the step.
#include <algorithm>
#include <cmath>

#include "engine/world_impl.h"

namespace impetus {

namespace {

// (pair, feature) → 64-bit key: 22 bits per body index, 20 bits of feature. Feature ids are
// folded so distinct features of one pair rarely collide; a collision only degrades warm starting.
std::uint64_t contact_key(int a, int b, std::uint32_t feature) {
  std::uint64_t f = (feature ^ (feature >> 20)) & 0xFFFFFu;
  return (static_cast<std::uint64_t>(a) << 42) | (static_cast<std::uint64_t>(b) << 20) | f;
}

}  // namespace

void World::Impl::build_contacts() {
  contacts.clear();
  for (size_t k = 0; k < pairs.size(); ++k) {
    const Manifold& m = manifolds[k];
    if (m.count == 0) continue;
    const int a = pairs[k].first, b = pairs[k].second;
    const MaterialDef& ma = def.materials[materials[a]];
    const MaterialDef& mb = def.materials[materials[b]];
    // scene-format.md: friction is the geometric mean, restitution the maximum.
    const double friction = std::sqrt(ma.friction * mb.friction);
    const double restitution = std::max(ma.restitution, mb.restitution);
    for (int p = 0; p < m.count; ++p) {
      const ContactPoint& cp = m.points[p];
      ContactConstraint c;
      c.body_a = a;
      c.body_b = b;
      c.key = contact_key(a, b, cp.feature_id != 0 ? cp.feature_id : static_cast<std::uint32_t>(p));
      c.normal = cp.normal;
      c.tangent1 = any_orthogonal(cp.normal);
      c.tangent2 = cp.normal.cross(c.tangent1);
      c.anchor_a = bodies[a].q.conjugate() * (cp.point_a - bodies[a].x);
      c.anchor_b = bodies[b].q.conjugate() * (cp.point_b - bodies[b].x);
      c.separation = cp.separation;
      c.friction = friction;
      c.restitution = restitution;
      // Warm start from the same (pair, feature) of the previous step.
      CachedImpulse probe;
      probe.key = c.key;
      auto it = std::lower_bound(warm_cache.begin(), warm_cache.end(), probe);
      if (it != warm_cache.end() && it->key == c.key) {
        c.normal_impulse = it->normal;
        c.tangent_impulse[0] = it->tangent[0];
        c.tangent_impulse[1] = it->tangent[1];
      }
      contacts.push_back(c);
    }
  }
}

void World::Impl::solve_contacts(double h) {
  sequential_impulse.prepare(bodies, contacts, h, solver_settings);
  sequential_impulse.solve_velocities(bodies, contacts, solver_settings);
}

void World::Impl::store_warm_start() {
  warm_cache.clear();
  warm_cache.reserve(contacts.size());
  for (const ContactConstraint& c : contacts) {
    CachedImpulse entry;
    entry.key = c.key;
    entry.normal = c.normal_impulse;
    entry.tangent[0] = c.tangent_impulse[0];
    entry.tangent[1] = c.tangent_impulse[1];
    warm_cache.push_back(entry);
  }
  // stable_sort: equal keys keep pair order, so lookups pick the same entry on every run.
  std::stable_sort(warm_cache.begin(), warm_cache.end());
}

}  // namespace impetus
