// Contact events (World::contact_events): at the end of every step, the set of body pairs that
// touch is compared with the previous step's; pairs that joined it Begin, pairs that left it
// End. Sensors (BodyDef::is_sensor) are collided like any body, get no contact constraints, and
// report through the same events.
//
// Touching: the narrowphase finds a point with separation <= kTouchingDistance (1 µm) between
// the two shapes at the end of the step, or the solver pushed the two apart during the step (a
// contact point of the pair got a positive normal impulse in one of its substeps).
//   - Not <= 0: a resting contact ends its steps within round-off of zero, on either side (a
//     ball resting on a plane under sequential impulses sat at separations of 0 to 1e-15 m after
//     the narrowphase and, by a hair, apart after the step, for good; the block solver leaves
//     1e-7 to 5e-7 m of overlap). 1 µm is far above such round-off (positions up to the 1e6 m
//     divergence limit round to 1e-10 m) and far below anything a user sees.
//   - The solver's push is for bounces: a speculative contact (world_impl.h, kContactMargin)
//     turns an approaching body round before the shapes meet, so with restitution a ball hits a
//     wall, and leaves it, at a gap of up to its speed × dt, and no step ends with the two
//     touching (24 spheres thrown about a box with restitution 0.9 for 3 s: not one sphere pair
//     came within 1 µm, though they collided all the time). Without restitution the solver lands
//     them at a gap of zero and both rules agree. Sensors have no solver: only the first rule.
//
// Cost: the step's last narrowphase ran at the start of its last substep, before the bodies
// moved, and colliding every pair again at the end would double the narrowphase. Instead each
// body's motion since that narrowphase is bounded (|Δx| + 2 sin(θ/2)·r for a turn θ and bounding
// radius r), and a pair whose separation then was further from 1 µm than the two bounds
// together keeps its side; only the pairs left undecided are collided again (in box_pile.json 5%
// of the pairs over the run, none once it rests: a resting pile moves micrometres per step
// against overlaps of tens). Pushed pairs need no test; pairs skipped because nothing in them
// moved (sleeping) keep their state.
//
// Begin carries the deepest point of the pair collided at the end of the step (with the pair's
// contact margin; a pair that bounced further apart than that keeps the point of the step's last
// narrowphase), and the speed at which the two surfaces approached there along the normal, from
// the velocities the bodies had in the last substep before its solver ran (the solver stopped
// or turned them round).
//
// Determinism: the pairs are sorted, each recheck writes its own slot, the lists are built
// serially in pair order: the events do not depend on the thread count. Memory: the lists are
// kept between steps; a step where nothing changes allocates nothing.
#include <algorithm>
#include <chrono>

#include "collision/base/parallel.h"
#include "collision/narrowphase/narrowphase.h"
#include "engine/world_impl.h"

namespace impetus {

namespace {

// Pairs whose separation is within this of the bounds' edge are collided again: the bound
// decides only where round-off cannot matter [m].
constexpr double kEventBoundSlack = 1e-9;

// On World::Impl::TouchingPair (private to World, hence the template).
template <class Pair>
bool index_less(const Pair& x, const Pair& y) {
  return x.a.index != y.a.index ? x.a.index < y.a.index : x.b.index < y.b.index;
}

template <class Pair>
bool same_ids(const Pair& x, const Pair& y) {
  return x.a == y.a && x.b == y.b;
}

}  // namespace

std::span<const ContactEvent> World::contact_events() const { return impl_->events; }

void World::Impl::snapshot_event_state() {
  const std::size_t n = bodies.size();
  event_x.resize(n);
  event_q.resize(n);
  event_v.resize(n);
  event_w.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const RigidBodySim& b = bodies[i];
    event_x[i] = b.x;
    event_q[i] = b.q;
    event_v[i] = b.v;
    event_w[i] = b.w;
  }
}

void World::Impl::record_pushed_pairs() {
  // Contacts are built in pair order, so each substep's pairs come sorted; a step of several
  // substeps sorts them together at the end (update_contact_events).
  const std::size_t before = pushed_pairs.size();
  pushed_pairs.reserve(before + contacts.size());
  for (const ContactConstraint& c : contacts) {
    if (!(c.normal_impulse > 0)) continue;
    const std::pair<int, int> pair(c.body_a, c.body_b);
    if (pushed_pairs.size() > before && pushed_pairs.back() == pair) continue;
    pushed_pairs.push_back(pair);
  }
}

void World::Impl::update_contact_events() {
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::swap(touching, touching_before);
  touching.clear();
  events.clear();
  begin_events.clear();

  // Each body's motion since the last narrowphase: a bound on how far any surface point went.
  const std::size_t n = bodies.size();
  event_motion.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const RigidBodySim& b = bodies[i];
    if (!b.moving || i >= event_x.size()) {
      event_motion[i] = 0;
      continue;
    }
    const Quat turn = b.q * event_q[i].conjugate();
    event_motion[i] = (b.x - event_x[i]).norm() + 2.0 * turn.vec().norm() * bounding_radii[i];
  }

  // Touching now: pushed by the solver, decided by the bound, as in the previous step (skipped
  // pairs), or collided again.
  std::sort(pushed_pairs.begin(), pushed_pairs.end());
  pushed_pairs.erase(std::unique(pushed_pairs.begin(), pushed_pairs.end()), pushed_pairs.end());
  pair_touch.resize(pairs.size());
  event_rechecks.clear();
  event_rechecks.reserve(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const int a = pairs[k].first, b = pairs[k].second;
    if (pair_skipped[k]) {
      const TouchingPair probe{body_id_at(a), body_id_at(b)};
      auto it = std::lower_bound(touching_before.begin(), touching_before.end(), probe,
                                 index_less<TouchingPair>);
      pair_touch[k] = it != touching_before.end() && same_ids(*it, probe) ? 1 : 0;
      continue;
    }
    if (std::binary_search(pushed_pairs.begin(), pushed_pairs.end(), pairs[k])) {
      pair_touch[k] = 1;
      continue;
    }
    const double motion = event_motion[a] + event_motion[b];
    const Manifold& m = manifolds[k];
    // No point below the margin: the shapes were at least the margin apart. `gap`: how far
    // from touching they were (> 0: apart).
    double separation = pair_margins[k];
    for (int p = 0; p < m.count; ++p) separation = std::min(separation, m.points[p].separation);
    const double gap = separation - kTouchingDistance;
    if (gap > motion + kEventBoundSlack) {
      pair_touch[k] = 0;
    } else if (gap + motion < -kEventBoundSlack) {
      pair_touch[k] = 1;
    } else {
      pair_touch[k] = 2;
      event_rechecks.push_back(static_cast<int>(k));
    }
  }
  // Each recheck writes only its own pair's slot: bit-identical for any thread count.
  parallel_for(static_cast<std::ptrdiff_t>(event_rechecks.size()), def.threads, [&](std::ptrdiff_t r) {
    const int k = event_rechecks[r];
    const int a = pairs[k].first, b = pairs[k].second;
    Manifold end;
    collide(shapes[a], bodies[a].frame_pose(), shapes[b], bodies[b].frame_pose(), kTouchingDistance,
            end);
    char touch = 0;
    for (int p = 0; p < end.count; ++p) touch = touch || end.points[p].separation <= kTouchingDistance;
    pair_touch[k] = touch;
  });
  touching.reserve(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    if (pair_touch[k]) touching.push_back({body_id_at(pairs[k].first), body_id_at(pairs[k].second),
                                           static_cast<int>(k)});
  }

  // The differences, both lists in (a.index, b.index) order: Ends now, Begins after them.
  auto end_event = [&](const TouchingPair& t) {
    ContactEvent e;
    e.a = t.a;
    e.b = t.b;
    e.type = ContactEventType::End;
    e.normal = Vec3::Zero();
    events.push_back(e);
  };
  auto begin_event = [&](const TouchingPair& t) {
    ContactEvent e;
    e.a = t.a;
    e.b = t.b;
    e.type = ContactEventType::Begin;
    begin_events.push_back(e);
  };
  std::size_t i = 0, j = 0;
  while (i < touching_before.size() || j < touching.size()) {
    if (j == touching.size() || (i < touching_before.size() && index_less(touching_before[i], touching[j]))) {
      end_event(touching_before[i++]);
    } else if (i == touching_before.size() || index_less(touching[j], touching_before[i])) {
      begin_event(touching[j++]);
    } else {
      // The same slots: the same pair, unless a slot was reused by a new body in between.
      if (!same_ids(touching_before[i], touching[j])) {
        end_event(touching_before[i]);
        begin_event(touching[j]);
      }
      ++i;
      ++j;
    }
  }
  if (!begin_events.empty()) {
    // Rare (a pair starts touching): collide it at the end of the step for its deepest point.
    std::size_t t = 0;
    for (ContactEvent& e : begin_events) {
      while (touching[t].a != e.a || touching[t].b != e.b) ++t;
      const int k = touching[t].pair;
      const int a = static_cast<int>(e.a.index), b = static_cast<int>(e.b.index);
      Manifold end;
      collide(shapes[a], bodies[a].frame_pose(), shapes[b], bodies[b].frame_pose(), pair_margins[k], end);
      const Manifold& m = end.count > 0 ? end : manifolds[k];
      int deepest = 0;
      for (int p = 1; p < m.count; ++p) {
        if (m.points[p].separation < m.points[deepest].separation) deepest = p;
      }
      if (m.count > 0) {
        const ContactPoint& cp = m.points[deepest];
        e.point = 0.5 * (cp.point_a + cp.point_b);
        e.normal = cp.normal;
      }
      const Vec3 va = event_v[a] + event_w[a].cross(e.point - event_x[a]);
      const Vec3 vb = event_v[b] + event_w[b].cross(e.point - event_x[b]);
      e.approach_speed = (va - vb).dot(e.normal);
    }
    events.insert(events.end(), begin_events.begin(), begin_events.end());
  }
  pushed_pairs.clear();
  time_phase(StepPhase::Narrowphase, start);
}

}  // namespace impetus
