// Bodies created overlapping (a scene that spawns one body inside another) are separated at
// the position level before the first step. The step's own post-stabilisation is a fix for
// drift: it clamps its corrections per pass and linearises each contact at the start of the
// step, so an overlap of a decimetre would take several steps, be reported as penetration in
// each, and its deep, poorly linearised contacts would tip and spin the bodies. Here the
// narrowphase runs anew before every pass, positions alone move (velocities untouched: no
// energy is added), and overlaps up to kSpawnOverlapTolerance are left to the step as usual.
#include <algorithm>

#include "engine/world_impl.h"

namespace impetus {

namespace {

constexpr double kSpawnOverlapTolerance = 0.1 * kContactMargin;  // [m]
constexpr int kSpawnSeparationPasses = 16;

}  // namespace

void World::Impl::separate_spawn_overlaps() {
  for (int pass = 0; pass < kSpawnSeparationPasses; ++pass) {
    update_broadphase(0.0);
    run_narrowphase(0.0);
    build_contacts();
    double deepest = 0;
    for (const ContactConstraint& c : contacts) deepest = std::max(deepest, -c.separation);
    if (deepest <= kSpawnOverlapTolerance) break;
    sequential_impulse.correct_positions(bodies, contacts, solver_settings);
  }
  contacts.clear();
}

}  // namespace impetus
