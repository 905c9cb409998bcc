// Broadphase and narrowphase phases of the step.
#include <algorithm>
#include <cmath>

#include "collision/base/parallel.h"
#include "collision/narrowphase.h"
#include "engine/world_impl.h"

namespace impetus {

namespace {

// Distance the shape's surface can travel in h: translation plus rotation of the farthest point
// about the COM (the motion bound of paper 2, eq. 4.7, over one step).
double motion_bound(const RigidBodySim& b, double radius, double h) {
  if (!b.moving) return 0;
  return h * (b.v.norm() + b.w.norm() * radius);
}

}  // namespace

void World::Impl::update_broadphase(double h) {
  // Swept boxes: the box now ∪ the box after this step's predicted translation, inflated by the
  // rotation bound and the contact margin, so a fast body finds what it may hit this step.
  for (size_t i = 0; i < bodies.size(); ++i) {
    const RigidBodySim& b = bodies[i];
    if (!b.moving) continue;
    Aabb now = compute_aabb(shapes[i], b.frame_pose());
    Aabb swept = now;
    Vec3 shift = h * b.v;
    swept.grow(Aabb{now.min + shift, now.max + shift});
    double spin = h * b.w.norm() * bounding_radii[i];
    broadphase.update(static_cast<int>(i), swept.inflated(spin + kContactMargin));
  }
  broadphase.compute_pairs(pairs);
  // Pairs where nothing can move (static/kinematic against static/kinematic) need no contacts,
  // and bodies joined by a joint do not collide with each other (their shapes usually overlap
  // at the joint by design).
  size_t kept = 0;
  for (const auto& pair : pairs) {
    if (!bodies[pair.first].dynamic && !bodies[pair.second].dynamic) continue;
    if (std::binary_search(jointed_pairs.begin(), jointed_pairs.end(), pair)) continue;
    pairs[kept++] = pair;
  }
  pairs.resize(kept);
}

void World::Impl::run_narrowphase(double h) {
  manifolds.resize(pairs.size());
  pair_margins.resize(pairs.size());
  for (size_t k = 0; k < pairs.size(); ++k) {
    int a = pairs[k].first, b = pairs[k].second;
    pair_margins[k] = kContactMargin + motion_bound(bodies[a], bounding_radii[a], h) +
                      motion_bound(bodies[b], bounding_radii[b], h);
  }
  // Each pair writes only its own manifold slot: bit-identical for any thread count.
  parallel_for(static_cast<std::ptrdiff_t>(pairs.size()), def.threads, [&](std::ptrdiff_t k) {
    int a = pairs[k].first, b = pairs[k].second;
    manifolds[k].clear();
    collide(shapes[a], bodies[a].frame_pose(), shapes[b], bodies[b].frame_pose(), pair_margins[k],
            manifolds[k]);
  });
}

}  // namespace impetus
