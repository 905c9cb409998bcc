#pragma once
// δ(t) of two moving shapes for the MCD methods (internal): the closed form of eq. 3.1 for
// capsule/sphere pairs, signed_distance otherwise; counts evaluations and keeps the smallest
// value seen (the upper bound of every method).
#include <limits>

#include "collision/base/math.h"
#include "collision/continuous/continuous_distance.h"
#include "collision/continuous/rigid_motion.h"
#include "collision/shape/shape.h"

namespace impetus::mcd_detail {

struct PairSample {
  double distance = std::numeric_limits<double>::infinity();
  Vec3 normal = Vec3::UnitZ();  // unit, a → b
  Vec3 point_a = Vec3::Zero();  // witness points (world): point_b − point_a = distance·normal
  Vec3 point_b = Vec3::Zero();
  Pose pose_a, pose_b;          // poses at the sample time
};

class PairDistance {
 public:
  PairDistance(const Shape& a, const RigidMotion& motion_a, const Shape& b,
               const RigidMotion& motion_b);

  /// δ(t); +infinity if signed_distance rejects the pair (callers validate first).
  PairSample operator()(double t);

  /// Lipschitz constant of δ (eq. 4.7 for the relative motion), see mcd_motion_bound.
  double lipschitz() const { return lipschitz_; }
  /// Both shapes are capsules or spheres (δ by the closed form of eq. 3.1).
  bool capsules() const { return capsules_; }
  /// Both shapes have support mappings: δ >= support gap along any direction (a → b).
  bool convex() const { return convex_; }
  /// Lower bound on δ at the sample's time from the support gap along `n`, and the rate at
  /// which that gap can shrink (directional form of eq. 4.7):
  ///   |n·(v_a − v_b)| + |ω_a × n|·R_a + |ω_b × n|·R_b.
  double support_gap(const PairSample& s, const Vec3& n) const;
  double directional_rate(const Vec3& n) const;
  /// Trivial lower bound on δ: −(r_a + r_b) for capsules/spheres, −infinity otherwise.
  double trivial_lower_bound() const;

  const RigidMotion& motion_a() const { return *ma_; }
  const RigidMotion& motion_b() const { return *mb_; }

  int evaluations = 0;
  double best = std::numeric_limits<double>::infinity();
  double best_time = 0;

 private:
  const Shape* a_;
  const Shape* b_;
  const RigidMotion* ma_;
  const RigidMotion* mb_;
  bool capsules_ = false;
  bool convex_ = false;
  double radius_a_ = 0, radius_b_ = 0;  // bounding radii
  double lipschitz_ = 0;
};

/// McdResult from the pair's best value and a lower bound.
McdResult make_result(const PairDistance& pair, double lower_bound, double tolerance, bool capped);

}  // namespace impetus::mcd_detail
