// World queries (issue 15): ray casts, overlap tests and shape casts against the bodies as they
// are now. Cloth is not a body and is never reported. Each query takes its candidates from the
// broadphase (boxes of every body; World::step leaves them holding each body's current box,
// refresh_query_boxes), then tests each candidate exactly, in increasing body index, serially:
// the answer depends only on the world's state, never on the thread count.
//
// Which exact test:
//  - ray casts: the per-shape closed forms of collision/query/ray_cast.h (meshes are surfaces there).
//  - overlap: the library's signed distance (collision/distance/distance.h), every pair of shape types; a
//    distance <= 0 overlaps, so shapes that only touch count (as a shape cast's hit at fraction 0
//    does). Closed meshes are solids there (distance_mesh.h). Two planes are two half-spaces,
//    which signed_distance leaves undefined; they overlap unless they face away from each other
//    (closed form below).
//  - shape casts: conservative advancement (collision/continuous/time_of_impact.h, paper 2, Alg. 3.1's
//    loop), the routine CCD uses, with the cast shape in pure translation (t in [0, 1] = the
//    fraction) against each candidate held still. Against a plane the gap of a translating set is
//    linear in t, δ(t) = δ(0) + t n·d; conservative advancement's directional step along n lands
//    on its root in one step for convex shapes, and we take that root directly so that meshes
//    (which it bounds without a direction) get it too.
#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/distance/distance.h"
#include "collision/distance/primitive_distance.h"
#include "collision/query/ray_cast.h"
#include "collision/continuous/time_of_impact.h"
#include "collision/base/parallel.h"
#include "engine/world_impl.h"
#include "engine/world_validate.h"

namespace impetus {

namespace {

/// Query boxes and segments are widened this much [m], so that a shape touching a box face is
/// never lost to rounding in the broadphase; candidates are then tested exactly.
constexpr double kQuerySlack = 1e-6;

/// A shape cast stops within this gap of contact [m] (ToiOptions::tolerance), never past it: the
/// fraction it reports is at most kCastTolerance / (approach speed along the normal) early.
constexpr double kCastTolerance = 1e-7;
/// Distance evaluations per candidate. Only a sweep that grazes a surface for a long way at a
/// gap near kCastTolerance can use them all; it then reports the contact at the time it had
/// safely reached (no contact before it).
constexpr int kCastMaxIterations = 1000;

// The orientation a query shape is placed with: finite and non-zero, normalised (as
// set_body_state does).
Quat query_orientation(const Quat& q, const char* function) {
  if (!q.coeffs().allFinite() || !(q.norm() > 0))
    throw_world_misuse(function, "orientation must be a finite, non-zero quaternion");
  return q.normalized();
}

void check_query_shape(const Shape& shape, const char* function) {
  if (std::string problem = shape_problem(shape); !problem.empty())
    throw_world_misuse(function, "invalid shape: " + problem);
}

// Two half-spaces n_a·x <= o_a and n_b·x <= o_b are disjoint only when their normals are
// opposite (n_b = −n_a) and o_a < −o_b; otherwise they meet (far away, maybe). Touching
// (o_a = −o_b) overlaps, as everywhere in World::overlap.
bool half_spaces_overlap(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b) {
  Vec3 na, nb;
  double oa, ob;
  plane_world(a, pose_a, na, oa);
  plane_world(b, pose_b, nb, ob);
  constexpr double kOpposite = 1e-12;  // 1 + n_a·n_b below this: antiparallel
  if (1.0 + na.dot(nb) > kOpposite) return true;
  return oa + ob >= 0;
}

}  // namespace

bool World::Impl::query_reports(int body, const QueryFilter& filter) const {
  if (sensors[body] && !filter.include_sensors) return false;
  return query_accepts(filter, filters[body]);
}

void World::Impl::ray_hits(const Vec3& origin, const Vec3& translation, const QueryFilter& filter,
                           std::vector<BodyRayHit>& out) const {
  out.clear();
  std::vector<int> candidates;
  if (translation.squaredNorm() > 0) {
    broadphase.query_segment(origin, origin + translation, kQuerySlack, candidates);
  } else {
    // A point: only a solid shape around it is hit (collision/query/ray_cast.h).
    broadphase.query_box(Aabb{origin, origin}.inflated(kQuerySlack), candidates);
  }
  for (int i : candidates) {
    if (!query_reports(i, filter)) continue;
    const std::optional<ShapeRayHit> hit =
        impetus::ray_cast(shapes[i], bodies[i].frame_pose(), origin, translation);
    if (hit) out.push_back(BodyRayHit{i, *hit});
  }
  if (!filter.include_cloth || translation.squaredNorm() == 0) return;
  // Cloth: every triangle (a query, not the step: no tree is kept for it), the first hit of each
  // cloth, the lowest triangle index among equal fractions.
  for (std::size_t c = 0; c < cloths.size(); ++c) {
    const std::vector<Vec3>& x = cloths[c].sim.positions();
    const std::vector<std::array<int, 3>>& triangles = cloths[c].sim.triangles();
    BodyRayHit first{-1, ShapeRayHit{2.0, Vec3::Zero(), Vec3::UnitZ()}, static_cast<int>(c), -1};
    for (std::size_t t = 0; t < triangles.size(); ++t) {
      const std::array<int, 3>& tri = triangles[t];
      const std::optional<ShapeRayHit> hit =
          ray_cast_triangle(x[tri[0]], x[tri[1]], x[tri[2]], origin, translation);
      if (hit && hit->fraction < first.hit.fraction) {
        first.hit = *hit;
        first.triangle = static_cast<int>(t);
      }
    }
    if (first.triangle >= 0) out.push_back(first);
  }
}

bool World::Impl::ray_hit_before(const BodyRayHit& a, const BodyRayHit& b) {
  if (a.hit.fraction != b.hit.fraction) return a.hit.fraction < b.hit.fraction;
  if ((a.body < 0) != (b.body < 0)) return a.body >= 0;
  if (a.body != b.body) return a.body < b.body;
  return a.cloth < b.cloth;
}

RayHit World::Impl::to_ray_hit(const BodyRayHit& h, const World& world) const {
  RayHit hit;
  if (h.body >= 0) hit.body = body_id_at(h.body);
  else hit.cloth = world.cloth_id(h.cloth);
  hit.point = h.hit.point;
  hit.normal = h.hit.normal;
  hit.fraction = h.hit.fraction;
  hit.triangle = h.triangle;
  return hit;
}

std::optional<double> World::Impl::cast_time(const Shape& shape, const Pose& pose,
                                             const Vec3& translation, int body,
                                             double t_end) const {
  const Shape& other = shapes[body];
  const Pose other_pose = bodies[body].frame_pose();
  if (other.type == ShapeType::Plane) {
    // δ(t) = δ(0) + t n·d (see the top of the file).
    const std::optional<DistanceResult> d = signed_distance(other, other_pose, shape, pose);
    if (!d) return std::nullopt;
    if (d->distance <= kCastTolerance) return 0.0;
    Vec3 n;
    double offset;
    plane_world(other, other_pose, n, offset);
    const double rate = n.dot(translation);
    if (!(rate < 0)) return std::nullopt;
    const double t = d->distance / -rate;
    if (t > t_end) return std::nullopt;
    return t;
  }
  if (shape.type == ShapeType::Mesh || other.type == ShapeType::Mesh) {
    // Advancement over a still mesh walks its triangles, its surface only; a shape already
    // enclosed by a closed mesh overlaps it (distance_mesh.h), so it hits at 0, as overlap says.
    const std::optional<DistanceResult> d = signed_distance(other, other_pose, shape, pose);
    if (d && d->distance <= kCastTolerance) return 0.0;
  }
  // Conservative advancement sees only relative motion. A mesh is best held still (its
  // triangles then get the directional bound, time_of_impact.h), so a cast mesh against a
  // convex body is solved as the body moving by −translation towards the mesh at rest.
  ToiBody cast, still;
  cast.shape = &shape;
  cast.motion.pose0 = pose;
  cast.motion.linear_velocity = translation;
  still.shape = &other;
  still.motion.pose0 = other_pose;
  if (shape.type == ShapeType::Mesh && other.is_convex()) {
    std::swap(cast.shape, still.shape);
    std::swap(cast.motion.pose0, still.motion.pose0);
    cast.motion.linear_velocity = -translation;
  }
  ToiOptions options;
  options.target = 0;
  options.tolerance = kCastTolerance;
  options.max_iterations = kCastMaxIterations;
  return conservative_advancement_toi(cast, still, 0, t_end, options).toi;
}

void World::Impl::refresh_query_boxes() {
  // A body leaves the box its step started with when the solver changed its velocity, CCD or
  // stabilisation moved it, or a contact woke it mid-step. Growing (never shrinking) the box
  // changes no later step: update_broadphase sets the box of every awake mover anew, and the
  // broadphase's pairs depend only on the boxes. Bodies asleep now did not move this step.
  // The boxes are computed in parallel (each body its own slot), the broadphase takes the grown
  // ones in body order: serially, they were a serial 1% of pile_spheres_1k's step at 2 threads.
  auto moved = [&](std::size_t i) { return bodies[i].moving && !bodies[i].asleep; };
  query_boxes_now.resize(bodies.size());
  parallel_for(static_cast<std::ptrdiff_t>(bodies.size()), def.threads, [&](std::ptrdiff_t i) {
    if (moved(i)) query_boxes_now[i] = compute_aabb(shapes[i], bodies[i].frame_pose());
  }, 0, kMinParallelCheap);
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    if (!moved(i)) continue;
    const Aabb& now = query_boxes_now[i];
    Aabb held = broadphase.box(static_cast<int>(i));
    if ((held.min.array() <= now.min.array()).all() && (held.max.array() >= now.max.array()).all())
      continue;
    held.grow(now);
    broadphase.update(static_cast<int>(i), held);
  }
}

std::optional<RayHit> World::ray_cast(const Vec3& origin, const Vec3& translation,
                                      const QueryFilter& filter) const {
  if (!origin.allFinite() || !translation.allFinite())
    throw_world_misuse("ray_cast", "origin and translation must be finite");
  std::vector<Impl::BodyRayHit> hits;
  impl_->ray_hits(origin, translation, filter, hits);
  const Impl::BodyRayHit* best = nullptr;
  for (const Impl::BodyRayHit& h : hits) {
    if (!best || Impl::ray_hit_before(h, *best)) best = &h;
  }
  if (!best) return std::nullopt;
  return impl_->to_ray_hit(*best, *this);
}

void World::ray_cast_all(const Vec3& origin, const Vec3& translation, const QueryFilter& filter,
                         const std::function<void(const RayHit&)>& callback) const {
  if (!origin.allFinite() || !translation.allFinite())
    throw_world_misuse("ray_cast_all", "origin and translation must be finite");
  if (!callback) throw_world_misuse("ray_cast_all", "the callback is empty");
  std::vector<Impl::BodyRayHit> hits;
  impl_->ray_hits(origin, translation, filter, hits);
  std::sort(hits.begin(), hits.end(), Impl::ray_hit_before);
  // Every hit is found before the first call: the callback may change the world.
  std::vector<RayHit> reported;
  reported.reserve(hits.size());
  for (const Impl::BodyRayHit& h : hits)
    reported.push_back(impl_->to_ray_hit(h, *this));
  for (const RayHit& hit : reported) callback(hit);
}

std::vector<BodyId> World::overlap(const Shape& shape, const Vec3& position,
                                   const Quat& orientation, const QueryFilter& filter) const {
  check_query_shape(shape, "overlap");
  if (!position.allFinite()) throw_world_misuse("overlap", "position must be finite");
  const Pose pose{position, query_orientation(orientation, "overlap")};
  const Impl& w = *impl_;
  std::vector<int> candidates;
  w.broadphase.query_box(compute_aabb(shape, pose).inflated(kQuerySlack), candidates);
  std::vector<BodyId> found;
  for (int i : candidates) {
    if (!w.query_reports(i, filter)) continue;
    const Pose body_pose = w.bodies[i].frame_pose();
    bool touches = false;
    if (shape.type == ShapeType::Plane && w.shapes[i].type == ShapeType::Plane) {
      touches = half_spaces_overlap(shape, pose, w.shapes[i], body_pose);
    } else {
      const std::optional<DistanceResult> d = signed_distance(shape, pose, w.shapes[i], body_pose);
      touches = d && d->distance <= 0;
    }
    if (touches) found.push_back(body_id(i));
  }
  return found;
}

std::optional<ShapeCastHit> World::shape_cast(const Shape& shape, const Vec3& position,
                                              const Quat& orientation, const Vec3& translation,
                                              const QueryFilter& filter) const {
  check_query_shape(shape, "shape_cast");
  if (shape.type == ShapeType::Plane)
    throw_world_misuse("shape_cast", "a plane cannot be cast (it is unbounded)");
  if (!position.allFinite() || !translation.allFinite())
    throw_world_misuse("shape_cast", "position and translation must be finite");
  const Pose pose{position, query_orientation(orientation, "shape_cast")};
  const Impl& w = *impl_;
  const Aabb start = compute_aabb(shape, pose);
  Aabb swept = start;
  swept.grow(Aabb{start.min + translation, start.max + translation});
  std::vector<int> candidates;
  w.broadphase.query_box(swept.inflated(kQuerySlack), candidates);

  // Earliest time over the candidates, in index order; each later search ends at the best time
  // so far (an advancement's path does not depend on where it ends), and the strict < keeps the
  // lowest index among equal times.
  int hit_body = -1;
  double hit_time = 1;
  for (int i : candidates) {
    if (!w.query_reports(i, filter)) continue;
    const std::optional<double> t = w.cast_time(shape, pose, translation, i, hit_time);
    if (t && (hit_body < 0 || *t < hit_time)) {
      hit_body = i;
      hit_time = *t;
    }
  }
  if (hit_body < 0) return std::nullopt;
  // Witness points at the time of impact, body first: the normal points from it to the shape.
  const Pose at{position + hit_time * translation, pose.orientation};
  const std::optional<DistanceResult> d =
      signed_distance(w.shapes[hit_body], w.bodies[hit_body].frame_pose(), shape, at);
  ShapeCastHit hit;
  hit.body = body_id(hit_body);
  hit.fraction = hit_time;
  if (d) {
    hit.point = d->point_a;
    // Near touching, the normal comes from nearly equal witness points: unit to ~1e-8 only.
    hit.normal = d->normal.normalized();
  }
  return hit;
}

}  // namespace impetus
