// Bodies created overlapping (a scene that spawns one body inside another) are separated at
// the position level before the first step. The step's own post-stabilisation is a fix for
// drift: it clamps its corrections per pass and linearises each contact at the start of the
// step, so an overlap of a decimetre would take several steps, be reported as penetration in
// each, and its deep, poorly linearised contacts would tip and spin the bodies. Here the
// narrowphase runs anew before every pass, positions alone move (velocities untouched: no
// energy is added), and overlaps up to kSpawnOverlapTolerance are left to the step as usual.
//
// Static geometry is never crossed on the way out, by the same argument as the step's
// post-stabilisation (max_step_correction): in one pass a body moves at most its contact
// margin, so every static surface it can reach was inside the narrowphase's margin and has a
// contact in this pass; after the dynamic pairs are corrected, those static contacts are
// projected out exactly. Without the bound a body squeezed out of a dense cluster was pushed
// straight through a 10 cm floor slab before the first step (hard_scenes_test.cpp).
#include <algorithm>
#include <cmath>

#include "engine/world_impl.h"

namespace impetus {

namespace {

constexpr double kSpawnOverlapTolerance = 0.1 * kContactMargin;  // [m]
// Margin-bounded passes: an overlap of d needs about d / (2 margins) of them; 256 covers
// 2.5 m at the default 5 mm margin. A scene without overlaps stops after the first.
constexpr int kSpawnSeparationPasses = 256;

// Scales the motion of `body` since (x0, q0) down so that no point within `radius` of its
// centre of mass moved more than `limit`.
void limit_motion(RigidBodySim& body, const Vec3& x0, const Quat& q0, double radius, double limit) {
  const Vec3 dx = body.x - x0;
  const Eigen::AngleAxisd turn(body.q * q0.conjugate());
  const double angle = std::abs(turn.angle());
  const double reach = dx.norm() + angle * radius;
  if (reach <= limit) return;
  const double s = limit / reach;
  body.x = x0 + s * dx;
  body.q = (Quat(Eigen::AngleAxisd(s * turn.angle(), turn.axis())) * q0).normalized();
  body.refresh_world_inertia();
}

}  // namespace

void World::Impl::separate_spawn_overlaps() {
  std::vector<Vec3> x0(bodies.size());
  std::vector<Quat> q0(bodies.size());
  for (int pass = 0; pass < kSpawnSeparationPasses; ++pass) {
    update_broadphase(0.0);
    run_narrowphase(0.0);
    build_contacts();
    double deepest = 0;
    for (const ContactConstraint& c : contacts) deepest = std::max(deepest, -c.separation);
    if (deepest <= kSpawnOverlapTolerance) break;
    for (size_t i = 0; i < bodies.size(); ++i) x0[i] = bodies[i].x, q0[i] = bodies[i].q;
    sequential_impulse.correct_positions(bodies, contacts, solver_settings);
    for (size_t i = 0; i < bodies.size(); ++i) {
      if (bodies[i].dynamic) limit_motion(bodies[i], x0[i], q0[i], bounding_radii[i], margins[i]);
    }
    // Out of static and kinematic bodies along each contact's normal, the static side last so
    // that it wins: a body may end a pass inside another dynamic body, never inside the floor.
    for (const ContactConstraint& c : contacts) {
      RigidBodySim& a = bodies[c.body_a];
      RigidBodySim& b = bodies[c.body_b];
      if (a.dynamic == b.dynamic) continue;
      const double separation = contact_separation(c, a, b);
      if (separation >= 0) continue;
      // The normal points from a to b.
      if (b.dynamic) b.x -= separation * c.normal;
      else a.x += separation * c.normal;
    }
  }
  contacts.clear();
}

}  // namespace impetus
