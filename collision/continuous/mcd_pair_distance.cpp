#include "collision/continuous/mcd_pair_distance.h"

#include <algorithm>
#include <cmath>

#include "collision/distance/distance.h"

namespace impetus::mcd_detail {
namespace {

bool is_capsule_like(const Shape& s) {
  return s.type == ShapeType::Capsule || s.type == ShapeType::Sphere;
}

// |ω|·R with a static or translating plane (R = ∞, ω = 0) contributing nothing.
double rotation_term(const RigidMotion& m, double radius) {
  const double w = m.angular_velocity.norm();
  return w > 0 ? w * radius : 0.0;
}

}  // namespace

PairDistance::PairDistance(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                           const RigidMotion& motion_b)
    : a_(&a), b_(&b), ma_(&motion_a), mb_(&motion_b) {
  capsules_ = is_capsule_like(a) && is_capsule_like(b);
  convex_ = a.is_convex() && b.is_convex();
  radius_a_ = bounding_radius(a);
  radius_b_ = bounding_radius(b);
  lipschitz_ = mcd_motion_bound(a, motion_a, b, motion_b);
}

PairSample PairDistance::operator()(double t) {
  ++evaluations;
  PairSample s;
  s.pose_a = ma_->at(t);
  s.pose_b = mb_->at(t);
  if (capsules_) {
    const CapsuleDistance d = capsule_signed_distance(*a_, s.pose_a, *b_, s.pose_b);
    s.distance = d.distance;
    s.normal = d.normal;
    s.point_a = d.core_a + a_->radius * d.normal;
    s.point_b = d.core_b - b_->radius * d.normal;
  } else if (std::optional<DistanceResult> d = signed_distance(*a_, s.pose_a, *b_, s.pose_b)) {
    s.distance = d->distance;
    s.normal = d->normal;
    s.point_a = d->point_a;
    s.point_b = d->point_b;
  }
  if (s.distance < best || (s.distance == best && t < best_time)) {
    best = s.distance;
    best_time = t;
  }
  return s;
}

double PairDistance::support_gap(const PairSample& s, const Vec3& n) const {
  // min over b of n·x − max over a of n·x: <= δ for convex sets (separating-axis bound, and
  // −penetration depth = max over directions of this gap when overlapping).
  return n.dot(support_world(*b_, s.pose_b, Vec3(-n))) - n.dot(support_world(*a_, s.pose_a, n));
}

double PairDistance::directional_rate(const Vec3& n) const {
  // A point r (from the body origin) moves along n at v·n + (ω × r)·n, |(ω × r)·n| <= |r|·|ω × n|.
  return std::abs(n.dot(ma_->linear_velocity - mb_->linear_velocity)) +
         ma_->angular_velocity.cross(n).norm() * radius_a_ +
         mb_->angular_velocity.cross(n).norm() * radius_b_;
}

double PairDistance::trivial_lower_bound() const {
  return capsules_ ? -(a_->radius + b_->radius) : -std::numeric_limits<double>::infinity();
}

McdResult make_result(const PairDistance& pair, double lower_bound, double tolerance, bool capped) {
  McdResult r;
  r.mcd = pair.best;
  r.time = pair.best_time;
  r.upper_bound = pair.best;
  r.lower_bound = std::min(lower_bound, pair.best);
  r.evaluations = pair.evaluations;
  r.certified = !capped && r.upper_bound - r.lower_bound <= tolerance;
  return r;
}

}  // namespace impetus::mcd_detail

namespace impetus {

double mcd_motion_bound(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                        const RigidMotion& motion_b) {
  // Paper 2, eq. 4.7 for the relative motion of any pair of material points p ∈ A, q ∈ B:
  // |ṗ − q̇| <= |v_a − v_b| + |ω_a|·max|p − x_a| + |ω_b|·max|q − x_b|.
  return (motion_a.linear_velocity - motion_b.linear_velocity).norm() +
         mcd_detail::rotation_term(motion_a, bounding_radius(a)) +
         mcd_detail::rotation_term(motion_b, bounding_radius(b));
}

}  // namespace impetus
