// Broadphase and narrowphase phases of the step.
#include <algorithm>
#include <cmath>

#include "collision/base/parallel.h"
#include "collision/narrowphase/narrowphase.h"
#include "engine/world_impl.h"

namespace impetus {

void World::Impl::update_broadphase(double h) {
  // Swept boxes: the box now ∪ the box after this step's predicted translation, inflated by the
  // rotation bound and the contact margin, so a fast body finds what it may hit this step.
  // A sleeping body keeps its last (conservative) box: it has not moved since. The boxes are
  // computed in parallel (each body its own slot); Bullet's tree takes them one by one.
  swept_boxes.resize(bodies.size());
  auto updated = [&](std::size_t i) { return bodies[i].moving && !bodies[i].asleep; };
  parallel_for(static_cast<std::ptrdiff_t>(bodies.size()), def.threads, [&](std::ptrdiff_t i) {
    if (updated(i)) swept_boxes[i] = swept_box(static_cast<int>(i), h);  // kept for CCD (world_ccd.cpp)
  }, 0, kMinParallelCheap);
  for (size_t i = 0; i < bodies.size(); ++i) {
    if (updated(i)) broadphase.update(static_cast<int>(i), swept_boxes[i]);
  }
  broadphase.compute_pairs(pairs, def.threads);
  // Pairs where nothing can move (static/kinematic against static/kinematic) need no contacts
  // (a sensor still sees a moving kinematic body); bodies joined by a joint do not collide with
  // each other (their shapes usually overlap at the joint by design); the collision filters
  // (engine/filter.h) and the rule that sensors ignore each other drop pairs here, before the
  // narrowphase, so a filtered pair costs nothing more.
  size_t kept = 0;
  for (const auto& pair : pairs) {
    const int a = pair.first, b = pair.second;
    if (!bodies[a].dynamic && !bodies[b].dynamic &&
        !(pair_has_sensor(a, b) && (bodies[a].moving || bodies[b].moving)))
      continue;
    if (!pair_allowed(a, b)) continue;
    if (std::binary_search(jointed_pairs.begin(), jointed_pairs.end(), pair)) continue;
    pairs[kept++] = pair;
  }
  pairs.resize(kept);
}

void World::Impl::run_narrowphase(double h) {
  manifolds.resize(pairs.size());
  pair_margins.resize(pairs.size());
  // Pairs with nothing awake in them (sleeping against sleeping, static or resting kinematic)
  // keep an empty manifold; wake_touched_islands runs them if their island wakes this step.
  pair_skipped.resize(pairs.size());
  // Each pair writes only its own slots (margin, skip flag, manifold): bit-identical for any
  // thread count.
  parallel_for(static_cast<std::ptrdiff_t>(pairs.size()), def.threads, [&](std::ptrdiff_t k) {
    int a = pairs[k].first, b = pairs[k].second;
    // Speculative margin: motions capped where CCD takes over (world_ccd.cpp).
    pair_margins[k] = pair_margin(a, b, h);
    pair_skipped[k] = bodies_asleep > 0 && !pair_needs_narrowphase(a, b) ? 1 : 0;
    manifolds[k].clear();
    if (pair_skipped[k]) return;
    collide(shapes[a], bodies[a].frame_pose(), shapes[b], bodies[b].frame_pose(), pair_margins[k],
            manifolds[k]);
  });
  if (bodies_asleep > 0) wake_touched_islands(h);
}

}  // namespace impetus
