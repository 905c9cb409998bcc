// Sleeping islands (DESIGN.md, "The step", phase 4: "sleeping islands are skipped").
//
// An island is a set of dynamic bodies linked by contacts and joints (static bodies, and
// kinematic ones, do not link islands). When every body of an island has moved slower than
// WorldDef::sleep_speed for WorldDef::sleep_delay seconds, the island falls asleep: velocities
// are zeroed and, until it wakes, its bodies get no forces, no integration, no narrowphase
// against each other or against static bodies, and no solver rows. The speed of a body is
// |v| + |ω|·r with r its bounding radius about the COM, a bound on the speed of its surface
// points (Jolt measures points on the bounding sphere for the same reason: a slowly spinning
// long body has a fast tip), less the spins that move no surface (surface_spin_speed).
//
// An island wakes, whole, when
//   - an awake mover (awake dynamic body, or kinematic body with a non-zero velocity) gets a
//     contact manifold with points with one of its bodies (sensors excepted), or is jointed to
//     one of them;
//   - the user sets a body's state, applies an impulse, creates or destroys a joint to it, or
//     destroys a body it touched (world_destroy.cpp);
//   - something else changed a sleeping body's velocity (cloth reaction impulses).
// A wake found after the narrowphase happens inside the step: the woken bodies get this step's
// gravity and their skipped pairs are collided before the contacts are built, so a stack hit by
// a ball is solved as one island in that very step. Their warm-start impulses were kept aside
// when they fell asleep and are put back, so a woken stack does not sag under a cold start.
//
// Determinism: every decision here is serial, in body/pair/contact index order, and depends only
// on the state, never on the thread count or on timing.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "collision/base/parallel.h"
#include "collision/narrowphase/narrowphase.h"
#include "dynamics/integrator.h"
#include "engine/world_impl.h"
#include "engine/world_validate.h"

namespace impetus {

namespace {

void size_sleep_arrays(std::vector<double>& sleep_time, std::vector<int>& sleep_island,
                       std::size_t n) {
  if (sleep_time.size() < n) sleep_time.resize(n, 0.0);
  if (sleep_island.size() < n) sleep_island.resize(n, -1);
}

// Bound on the speed at which rotation sweeps the shape's surface through space: |ω|·r, except
// that spinning a sphere about its centre, or a capsule about its axis, moves no surface at all.
// Without this a ball resting in a pile while spinning about the vertical (the contact model has
// no torsional friction to stop it) would keep its whole island awake for ever; asleep, it
// loses that spin, which is what torsional friction would have done.
double surface_spin_speed(const Shape& shape, const RigidBodySim& b, double radius) {
  switch (shape.type) {
    case ShapeType::Sphere:
      return 0.0;
    case ShapeType::Capsule: {
      const Vec3 axis = b.q * Vec3::UnitZ();
      const Vec3 w_across = b.w - b.w.dot(axis) * axis;
      return w_across.norm() * radius;
    }
    default:
      return b.w.norm() * radius;
  }
}

}  // namespace

bool World::Impl::is_awake_mover(int i) const {
  const RigidBodySim& b = bodies[i];
  if (!b.moving || b.asleep) return false;
  // A kinematic body at rest is as good as static: it neither wakes nor keeps awake.
  return b.dynamic || b.v.squaredNorm() > 0 || b.w.squaredNorm() > 0;
}

bool World::Impl::pair_needs_narrowphase(int a, int b) const {
  return is_awake_mover(a) || is_awake_mover(b);
}

void World::Impl::wake_island(int body) {
  if (body < 0 || body >= static_cast<int>(sleep_island.size())) return;
  const int label = sleep_island[body];
  if (label < 0) return;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    if (sleep_island[i] != label) continue;
    bodies[i].asleep = false;
    ++wake_count;
    sleep_island[i] = -1;
    sleep_time[i] = 0;
    --bodies_asleep;
  }
  // Put the island's warm-start impulses back (kept aside when it fell asleep).
  std::size_t kept = 0;
  bool restored = false;
  for (const SleptImpulse& s : slept_impulses) {
    if (s.island == label) {
      warm_cache.push_back(s.impulse);
      restored = true;
    } else {
      slept_impulses[kept++] = s;
    }
  }
  slept_impulses.resize(kept);
  if (restored) sort_warm_cache(warm_cache);
}

void World::Impl::wake_touched_islands(double h) {
  size_sleep_arrays(sleep_time, sleep_island, bodies.size());
  std::vector<int> recollide, woken;
  // A woken island's bodies may touch another sleeping island: repeat until nothing new wakes.
  while (bodies_asleep > 0) {
    wake_marks.assign(bodies.size(), 0);
    bool any = false;
    auto mark = [&](int sleeper, int other) {
      // other < 0: jointed to the world, which never moves.
      if (sleeper < 0 || other < 0 || !bodies[sleeper].asleep || !is_awake_mover(other)) return;
      wake_marks[sleep_island[sleeper]] = 1;
      any = true;
    };
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      // A sensor pushes nothing, so it wakes nothing.
      if (manifolds[k].count == 0 || pair_has_sensor(pairs[k].first, pairs[k].second)) continue;
      mark(pairs[k].first, pairs[k].second);
      mark(pairs[k].second, pairs[k].first);
    }
    for (const JointSim& j : joints) {
      mark(j.body_a, j.body_b);
      mark(j.body_b, j.body_a);
    }
    if (!any) break;
    // The woken bodies missed this step's forces phase: give them its gravity.
    woken.clear();
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      if (bodies[i].asleep && wake_marks[sleep_island[i]]) woken.push_back(static_cast<int>(i));
    }
    for (int i : woken) wake_island(i);
    for (int i : woken) integrate_velocity(bodies[i], def.gravity, h);
    // Collide the pairs skipped because nothing in them was awake, with the same margin as
    // run_narrowphase; each writes only its own manifold slot.
    recollide.clear();
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      if (!pair_skipped[k]) continue;
      const int a = pairs[k].first, b = pairs[k].second;
      if (!pair_needs_narrowphase(a, b)) continue;
      pair_skipped[k] = 0;
      pair_margins[k] = pair_margin(a, b, h);
      recollide.push_back(static_cast<int>(k));
    }
    parallel_for(static_cast<std::ptrdiff_t>(recollide.size()), def.threads, [&](std::ptrdiff_t r) {
      const int k = recollide[r];
      const int a = pairs[k].first, b = pairs[k].second;
      manifolds[k].clear();
      collide(shapes[a], bodies[a].frame_pose(), shapes[b], bodies[b].frame_pose(),
              pair_margins[k], manifolds[k]);
    });
  }
}

void World::Impl::wake_disturbed_bodies() {
  size_sleep_arrays(sleep_time, sleep_island, bodies.size());
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const RigidBodySim& b = bodies[i];
    if (b.asleep && (b.v.squaredNorm() > 0 || b.w.squaredNorm() > 0))
      wake_island(static_cast<int>(i));
  }
}

void World::Impl::update_sleep() {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  size_sleep_arrays(sleep_time, sleep_island, bodies.size());
  if (def.sleep) {
    // Rest timers: the time each awake dynamic body has been slower than sleep_speed.
    bool candidate = false;
    bool kinematic_moving = false;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const RigidBodySim& b = bodies[i];
      if (!b.dynamic) {
        kinematic_moving = kinematic_moving || is_awake_mover(static_cast<int>(i));
        continue;
      }
      if (b.asleep) continue;
      const double speed = b.v.norm() + surface_spin_speed(shapes[i], b, bounding_radii[i]);
      sleep_time[i] = speed < def.sleep_speed ? sleep_time[i] + def.dt : 0.0;
    }
    // A body pushed by a moving kinematic body is not at rest, even when it is stuck. Without
    // one, the contacts are not read: the 10,000-box pile's 42,000 (a cache miss each, serial)
    // made this phase 0.4 ms of its step, 30 times the 1,000-box pile's.
    if (kinematic_moving) {
      for (const ContactConstraint& c : contacts) {
        if (bodies[c.body_a].dynamic && !bodies[c.body_b].dynamic && is_awake_mover(c.body_b))
          sleep_time[c.body_a] = 0;
        if (bodies[c.body_b].dynamic && !bodies[c.body_a].dynamic && is_awake_mover(c.body_a))
          sleep_time[c.body_b] = 0;
      }
      for (const JointSim& j : joints) {
        if (j.body_b >= 0 && !bodies[j.body_b].dynamic && is_awake_mover(j.body_b))
          sleep_time[j.body_a] = 0;
        if (!bodies[j.body_a].dynamic && is_awake_mover(j.body_a) && j.body_b >= 0)
          sleep_time[j.body_b] = 0;
      }
    }
    for (std::size_t i = 0; i < bodies.size() && !candidate; ++i)
      candidate = bodies[i].dynamic && !bodies[i].asleep && sleep_time[i] >= def.sleep_delay;

    // Only when some body has rested long enough are the islands worth building.
    if (candidate) {
      // The solver's islands of the step's last substep, unless a body woke since (cloth
      // reactions): building them again was a serial 0.02 ms of pile_spheres_1k's step.
      const bool solver_islands_hold = islands_built_at == wake_count;
      if (!solver_islands_hold) build_awake_islands(sleep_islands);
      for (const Island& island : solver_islands_hold ? islands : sleep_islands) {
        bool rested = true;
        for (int i : island.bodies) rested = rested && sleep_time[i] >= def.sleep_delay;
        if (!rested) continue;
        const int label = island.bodies.front();  // smallest index: unique among islands
        for (int i : island.bodies) {
          RigidBodySim& b = bodies[i];
          b.asleep = true;
          b.v.setZero();
          b.w.setZero();
          sleep_island[i] = label;
          ++bodies_asleep;
        }
        // Keep the island's contact impulses for its wake-up (warm starting).
        for (int k : island.contacts) {
          const ContactConstraint& c = contacts[k];
          SleptImpulse s;
          s.island = label;
          s.impulse = cached_impulse(c);
          slept_impulses.push_back(s);
        }
      }
    }
  }
  islands_built_at = -1;  // the next step builds its own
  stats.bodies_asleep = bodies_asleep;
  stats.sleeping_body_steps += bodies_asleep;
  time_phase(StepPhase::Sleep, start);
}

std::vector<JointSim>& World::Impl::solver_joints() {
  use_awake_joints = bodies_asleep > 0;
  if (!use_awake_joints) return joints;
  // Rebuilt on every call of the substep: the awake set does not change between them, so the
  // block indices (into this list) stay valid; impulses are copied back by store_solver_joints.
  awake_joints.clear();
  awake_joint_index.clear();
  for (std::size_t k = 0; k < joints.size(); ++k) {
    const JointSim& j = joints[k];
    if (bodies[j.body_a].asleep || (j.body_b >= 0 && bodies[j.body_b].asleep)) continue;
    awake_joints.push_back(j);
    awake_joint_index.push_back(static_cast<int>(k));
  }
  return awake_joints;
}

void World::Impl::store_solver_joints() {
  if (!use_awake_joints) return;
  for (std::size_t k = 0; k < awake_joints.size(); ++k) {
    JointSim& j = joints[awake_joint_index[k]];
    j.linear_impulse = awake_joints[k].linear_impulse;
    j.angular_impulse = awake_joints[k].angular_impulse;
  }
}

// ---- public API -------------------------------------------------------------------------------

bool World::is_asleep(BodyId id) const {
  return impl_->bodies[impl_->check_body(id, "is_asleep")].asleep;
}

void World::wake_body(BodyId id) {
  Impl& w = *impl_;
  w.check_body(id, "wake_body");
  size_sleep_arrays(w.sleep_time, w.sleep_island, w.bodies.size());
  w.wake_island(static_cast<int>(id.index));
  w.sleep_time[id.index] = 0;
}

void World::apply_impulse(BodyId id, const Vec3& impulse, const Vec3& point) {
  Impl& w = *impl_;
  RigidBodySim& b = w.bodies[w.check_body(id, "apply_impulse")];
  if (!impulse.allFinite() || !point.allFinite())
    throw_world_misuse("apply_impulse", "impulse and point must be finite");
  if (!b.dynamic) return;
  wake_body(id);
  b.v += b.inv_mass * impulse;
  b.w += b.inv_inertia_world * (point - b.x).cross(impulse);
}

}  // namespace impetus
