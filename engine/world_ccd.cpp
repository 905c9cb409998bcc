// CCD phase of the step (DESIGN.md, "The step", 6): after the velocity solve, bodies that move
// more than a fraction of their size this step are advanced only to their first time of impact.
//
// How CCD and speculative contacts share the work: a dynamic body's speculative margin covers its
// motion up to kCcdMotionFraction of its smallest size (speculative_motion); beyond that the
// margin is capped and CCD takes over. A huge speculative margin would create contacts far ahead
// of a bullet, along normals it may never reach (ghost collisions), and cost solver rows; a body
// moving less than a fraction of its size cannot tunnel past what its margin sees.
//
// A fast body gets the earliest TOI over the candidates the swept broadphase found (recomputed by
// brute force when the solve changed its velocity enough to leave its broadphase box), against
// the other body's motion this step. It is advanced to that time, short of contact by kCcdSafety,
// and keeps its velocity: the next step's contact (now within the margin) is resolved by the
// solver with friction and restitution as usual. It loses the rest of the step's motion, which is
// the usual price of this "advance and stop" CCD (Jolt's linear cast, Box2D's continuous solve).
//
// TOI per pair: a box or convex hull against a plane by the extreme-vertex method (paper 3);
// everything else by conservative advancement (paper 2, Alg. 3.1's loop with the motion bound of
// eq. 3.3/4.7, directional for convex pairs and per triangle against still meshes), see
// collision/continuous/time_of_impact.h.
//
// Known limits: kinematic bodies are never stopped (their motion is prescribed), and when a fast
// body stops early, another fast body's TOI against it still assumed its full motion. Sensors
// take no part (they have no response).
#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/base/parallel.h"
#include "collision/distance/primitive_distance.h"
#include "collision/continuous/time_of_impact.h"
#include "engine/world_impl.h"

namespace impetus {

namespace {

// Distance the surface of a moving body can travel in h (paper 2, eq. 4.7, over one step).
double full_motion(const RigidBodySim& b, double radius, double h) {
  if (!b.moving) return 0;
  return h * (b.v.norm() + b.w.norm() * radius);
}

bool contains(const Aabb& outer, const Aabb& inner) {
  return (outer.min.array() <= inner.min.array()).all() &&
         (outer.max.array() >= inner.max.array()).all();
}

}  // namespace

double World::Impl::body_margin(int i) const {
  if (!bodies[i].dynamic) return kContactMargin;
  return std::min(kContactMargin, kMarginSizeFraction * smallest_sizes[i]);
}

double World::Impl::pair_margin(int a, int b, double h) const {
  return std::min(margins[a], margins[b]) + speculative_motion(a, h) + speculative_motion(b, h);
}

double World::Impl::speculative_motion(int i, double h) const {
  const RigidBodySim& b = bodies[i];
  const double motion = full_motion(b, bounding_radii[i], h);
  // Kinematic bodies are never stopped by CCD, so their margin keeps their whole motion.
  if (!b.dynamic) return motion;
  return std::min(motion, kCcdMotionFraction * smallest_sizes[i]);
}

Aabb World::Impl::swept_box(int i, double h) const {
  const RigidBodySim& b = bodies[i];
  Aabb now = compute_aabb(shapes[i], b.frame_pose());
  if (!b.moving) return now;
  Aabb swept = now;
  const Vec3 shift = h * b.v;
  swept.grow(Aabb{now.min + shift, now.max + shift});
  return swept.inflated(h * b.w.norm() * bounding_radii[i] + margins[i]);
}

void World::Impl::run_ccd(double h) {
  step_times.clear();  // empty = every body advances the whole step
  if (!def.ccd) return;
  const int n = static_cast<int>(bodies.size());
  ccd_bodies.clear();
  for (int i = 0; i < n; ++i) {
    const RigidBodySim& b = bodies[i];
    // A sensor has no response: nothing stops it, and it stops nothing.
    if (b.dynamic && !sensors[i] &&
        full_motion(b, bounding_radii[i], h) > kCcdMotionFraction * smallest_sizes[i])
      ccd_bodies.push_back(i);
  }
  if (ccd_bodies.empty()) return;  // the common case costs one pass over the bodies

  // Candidates per fast body, from the sorted broadphase pairs (so in increasing index order).
  const int fast_count = static_cast<int>(ccd_bodies.size());
  ccd_slot.assign(n, -1);
  for (int k = 0; k < fast_count; ++k) ccd_slot[ccd_bodies[k]] = k;
  if (static_cast<int>(ccd_candidates.size()) < fast_count) ccd_candidates.resize(fast_count);
  for (int k = 0; k < fast_count; ++k) ccd_candidates[k].clear();
  for (const auto& [a, b] : pairs) {
    if (pair_has_sensor(a, b)) continue;
    if (ccd_slot[a] >= 0) ccd_candidates[ccd_slot[a]].push_back(b);
    if (ccd_slot[b] >= 0) ccd_candidates[ccd_slot[b]].push_back(a);
  }
  bool swept_now_ready = false;
  for (int k = 0; k < fast_count; ++k) {
    const int i = ccd_bodies[k];
    const Aabb sweep = swept_box(i, h);
    if (static_cast<int>(swept_boxes.size()) > i && contains(swept_boxes[i], sweep)) continue;
    // The solve turned the body beyond its broadphase box: find its candidates by brute force
    // (fast bodies deflected by a contact or joint: most links of a swinging chain). Every
    // body's box after the solve is computed once per step, not once per fast body (that was
    // 15% of capsule_chain_50's step).
    if (!swept_now_ready) {
      ccd_swept_now.resize(n);
      for (int j = 0; j < n; ++j)
        if (live[j] && !sensors[j]) ccd_swept_now[j] = swept_box(j, h);
      swept_now_ready = true;
    }
    std::vector<int>& list = ccd_candidates[k];
    list.clear();
    for (int j = 0; j < n; ++j) {
      // Free slots, sensors and filtered pairs, as in update_broadphase; the box test first, as
      // it rejects most bodies at the cost of a few comparisons.
      if (j == i || !live[j] || sensors[j] || !sweep.overlaps(ccd_swept_now[j]) || !pair_allowed(i, j)) continue;
      const std::pair<int, int> key(std::min(i, j), std::max(i, j));
      if (!std::binary_search(jointed_pairs.begin(), jointed_pairs.end(), key)) list.push_back(j);
    }
  }

  // Lazily built extreme-vertex diagrams of fast boxes and hulls that have a plane candidate.
  if (ccd_diagrams.size() < bodies.size()) ccd_diagrams.resize(bodies.size());
  ccd_times.assign(fast_count, h);
  // Each fast body writes only its own slots: bit-identical for any thread count.
  parallel_for(fast_count, def.threads, [&](std::ptrdiff_t k) {
    const int i = ccd_bodies[k];
    double t_stop = h;
    for (int j : ccd_candidates[k]) {
      const std::optional<double> toi = pair_time_of_impact(i, j, t_stop);
      if (toi) t_stop = std::min(t_stop, *toi);
    }
    ccd_times[k] = t_stop;
  });
  step_times.assign(n, h);
  for (int k = 0; k < fast_count; ++k) step_times[ccd_bodies[k]] = ccd_times[k];
  share_step_times_across_joints();
}

void World::Impl::share_step_times_across_joints() {
  // A body stopped at its time of impact while its joint partner moves the whole step opens
  // the joint (a ragdoll's fast-spinning forearm: 0.2 rad at the elbow). Bodies linked by
  // joints therefore move as one: every body of a jointed group takes the group's earliest
  // stop. Union–find over the joints, smallest index as the root: deterministic.
  if (joints.empty()) return;
  const int n = static_cast<int>(bodies.size());
  std::vector<int>& parent = joint_group_parent;
  parent.resize(n);
  for (int i = 0; i < n; ++i) parent[i] = i;
  auto root = [&](int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  bool linked = false;
  for (const JointSim& j : joints) {
    if (j.body_b < 0 || !bodies[j.body_a].dynamic || !bodies[j.body_b].dynamic) continue;
    const int ra = root(j.body_a), rb = root(j.body_b);
    if (ra == rb) continue;
    parent[std::max(ra, rb)] = std::min(ra, rb);
    linked = true;
  }
  if (!linked) return;
  std::vector<double>& group_time = joint_group_time;
  group_time.assign(n, std::numeric_limits<double>::infinity());
  for (int i = 0; i < n; ++i) group_time[root(i)] = std::min(group_time[root(i)], step_times[i]);
  for (int i = 0; i < n; ++i) {
    if (bodies[i].dynamic) step_times[i] = group_time[root(i)];
  }
}

std::optional<double> World::Impl::pair_time_of_impact(int i, int j, double t_end) {
  const RigidBodySim& bi = bodies[i];
  const RigidBodySim& bj = bodies[j];
  ToiBody a;
  a.shape = &shapes[i];
  a.motion.pose0 = Pose{bi.x, bi.q};
  a.motion.linear_velocity = bi.v;
  a.motion.angular_velocity = bi.w;
  a.center_local = bi.com_local;
  a.radius = bounding_radii[i];
  ToiBody b;
  b.shape = &shapes[j];
  b.motion.pose0 = Pose{bj.x, bj.q};
  if (bj.moving) {
    b.motion.linear_velocity = bj.v;
    b.motion.angular_velocity = bj.w;
  }
  b.center_local = bj.com_local;
  b.radius = bounding_radii[j];

  // Target level: stop kCcdSafety short of contact. A pair already touching (the solver owns
  // that contact) only stops a body that would sink kCcdAllowedPenetration deeper than it is,
  // so resting and sliding contacts never freeze a fast body.
  const std::optional<DistanceResult> d0 =
      signed_distance(*a.shape, a.shape_pose(0), *b.shape, b.shape_pose(0));
  if (!d0) return std::nullopt;
  ToiOptions options;
  options.target = d0->distance > 2 * kCcdSafety
                       ? kCcdSafety
                       : std::min(d0->distance, kCcdSafety) - kCcdAllowedPenetration;
  options.tolerance = kCcdTolerance;
  options.max_iterations = kCcdMaxIterations;

  const ShapeType ti = shapes[i].type;
  if (shapes[j].type == ShapeType::Plane && (ti == ShapeType::Box || ti == ShapeType::Convex)) {
    // Paper 3: exact TOI of the polyhedron's vertices against the plane, any rotation speed.
    if (!ccd_diagrams[i])
      ccd_diagrams[i] = std::make_unique<ExtremeVertexDiagram>(
          build_centered_diagram(shapes[i], bi.com_local));
    Vec3 normal;
    double offset;
    plane_world(shapes[j], bj.frame_pose(), normal, offset);
    return plane_time_of_impact(*ccd_diagrams[i], a.motion, normal, offset, 0, t_end, options).toi;
  }
  return conservative_advancement_toi(a, b, 0, t_end, options).toi;
}

}  // namespace impetus
