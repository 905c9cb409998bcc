#include "dynamics/constraint_rows.h"

#include <cmath>

namespace impetus {

namespace {

const RigidBodySim& world_body() {
  static const RigidBodySim world;  // at the origin, identity, at rest, infinite mass
  return world;
}

const RigidBodySim& body_or_world(const std::vector<RigidBodySim>& bodies, int index) {
  return index >= 0 ? bodies[index] : world_body();
}

// Where the joint's anchors are now, and its axis in world.
struct JointPose {
  Vec3 pa, pb, ra, rb, axis;
  Quat qa, qb;
};

JointPose joint_pose(const JointSim& j, const std::vector<RigidBodySim>& bodies) {
  const RigidBodySim& a = bodies[j.body_a];
  const RigidBodySim& b = body_or_world(bodies, j.body_b);
  // The sums coordinate by coordinate: written as a.x + ra, GCC stored ra's coordinates one by
  // one and reloaded them as a pair for a vector add, a store-forwarding stall that was half of
  // this function's time (perf). Same operations, same bits.
  const Vec3 ra = quat_rotate(a.q, j.anchor_a);
  const Vec3 rb = quat_rotate(b.q, j.anchor_b);
  JointPose p;
  p.qa = a.q;
  p.qb = b.q;
  p.ra = ra;
  p.pa = Vec3(a.x.x() + ra.x(), a.x.y() + ra.y(), a.x.z() + ra.z());
  p.rb = rb;
  p.pb = Vec3(b.x.x() + rb.x(), b.x.y() + rb.y(), b.x.z() + rb.z());
  p.axis = quat_rotate(b.q, j.axis_b);
  return p;
}

// Rows of the block (unit directions) and their sign: +1 rows measure b − a, −1 rows a − b
// (limit rows measure the joint coordinate of a relative to b).
Mat3 axis_rows(const Vec3& axis) {
  Vec3 p1 = any_orthogonal(axis);
  Vec3 p2 = axis.cross(p1);
  Mat3 d;
  d.row(0) = p1.transpose();
  d.row(1) = p2.transpose();
  d.row(2) = axis.transpose();
  return d;
}

// Relative rotation error E = q_b · rest · q_a⁻¹: identity when the joint holds; its rotation
// vector grows with ω_b − ω_a.
Vec3 angular_error(const JointSim& j, const JointPose& p) {
  return rotation_vector_from_quat(p.qb * j.rest_relative * p.qa.conjugate());
}

// Hinge misalignment: the rotation (vector) that turns the hinge axis as carried by a onto the
// axis as carried by b. Its rate is the part of ω_b − ω_a perpendicular to the axis — exactly what
// the two angular velocity rows constrain — whatever the hinge angle. The perpendicular part of
// the full relative rotation vector (angular_error) is not: at a hinge angle θ it is the true
// misalignment scaled by about (θ/2)/sin(θ/2) and turned by about θ/2 about the axis (69° at
// the 2.4 rad elbow limits of ragdolls_20), so a full-gain position correction along it spirals
// outwards and opens the joint.
Vec3 hinge_misalignment(const JointSim& j, const JointPose& p) {
  const Vec3 axis_by_a = p.qa * (j.rest_relative.conjugate() * j.axis_b);
  const Vec3 cross = axis_by_a.cross(p.axis);
  const double s = cross.norm();
  if (s < 1e-15) return cross;
  return cross * (std::atan2(s, axis_by_a.dot(p.axis)) / s);
}

bool has_limit_row(const JointSim& j, bool angular) {
  if (!j.limits) return false;
  return (j.kind == JointKind::Hinge && angular) || (j.kind == JointKind::Slider && !angular);
}

void set_limit_row(const JointSim& j, double value, double rate, double h, ConstraintBlock& block) {
  const double lo = (*j.limits)[0], hi = (*j.limits)[1];
  block.rhs[2] = 0;
  if (hi - lo <= 0) {  // a locked coordinate
    block.kind[2] = RowKind::Equality;
    block.rhs[2] = (lo - value) / h;
    block.limit_active[2] = true;
    return;
  }
  // One row serves both limits: the one nearer to where the joint is heading this step
  // (from the middle of the range, a joint turning fast enough reaches either limit).
  const double predicted = value + h * rate;
  const bool near_lower = (predicted - lo) <= (hi - predicted);
  block.kind[2] = near_lower ? RowKind::LimitLower : RowKind::LimitUpper;
  const double limit = near_lower ? lo : hi;
  // Speculative: the joint may approach its limit at most so fast that it reaches it at the end
  // of the step. Past the limit the target is 0 (go no further), as for a penetrating contact:
  // the violation is removed by post-stabilisation at the position level. A velocity target
  // that pushes back ((limit − value)/h, full-gain Baumgarte) fights contacts that hold the
  // joint past its limit and makes a resting ragdoll creep (scenes/ragdolls.json: a forearm
  // pressed into the ground slid at 2.8 cm/s for seconds).
  const double approach = (limit - value) / h;
  block.rhs[2] = near_lower ? std::min(approach, 0.0) : std::max(approach, 0.0);
  block.limit_active[2] = near_lower ? predicted < lo : predicted > hi;
}

}  // namespace

ConstraintBlock make_contact_block(const ContactConstraint& c, int contact_index) {
  ConstraintBlock block;
  block.body = {c.body_a, c.body_b};
  Mat3 d;
  d.row(0) = c.normal.transpose();
  d.row(1) = c.tangent1.transpose();
  d.row(2) = c.tangent2.transpose();
  // row·(v + ω×r) = row·v + (r×row)·ω
  block.jv[1] = d;
  block.jw[1] = d * skew(c.rb).transpose();
  block.jv[0] = -d;
  block.jw[0] = -(d * skew(c.ra).transpose());
  block.rhs = Vec3(c.velocity_target, 0, 0);
  block.kind = {RowKind::Normal, RowKind::Friction, RowKind::Friction};
  block.contact = contact_index;
  block.friction = c.friction;
  return block;
}

Vec3 joint_impulse_in_world(const ConstraintBlock& block, const Vec3& lambda) {
  // The rows are orthonormal directions with signs (axis_rows), so the inverse is the transpose.
  return (block.angular ? block.jw[1] : block.jv[1]).transpose() * lambda;
}

void append_joint_blocks(const JointSim& j, int joint_index, const std::vector<RigidBodySim>& bodies,
                         double h, std::vector<ConstraintBlock>& out) {
  const JointPose p = joint_pose(j, bodies);
  const RigidBodySim& a = bodies[j.body_a];
  const RigidBodySim& b = body_or_world(bodies, j.body_b);

  // Linear block: the anchor points move together (paper 5, eq. 8); sliders free the axis row.
  ConstraintBlock lin;
  lin.body = {j.body_a, j.body_b};
  lin.joint = joint_index;
  lin.angular = false;
  Mat3 d = j.kind == JointKind::Slider ? axis_rows(p.axis) : Mat3::Identity();
  Vec3 sign(1, 1, 1);
  if (j.kind == JointKind::Slider) {
    sign[2] = -1;
    if (has_limit_row(j, false)) {
      double value = p.axis.dot(p.pa - p.pb);
      double rate = p.axis.dot(a.point_velocity(p.pa) - b.point_velocity(p.pb));
      set_limit_row(j, value, rate, h, lin);
    } else {
      lin.kind[2] = RowKind::Unused;
    }
  }
  Mat3 sd = sign.asDiagonal() * d;
  lin.jv[1] = sd;
  lin.jw[1] = sd * skew(p.rb).transpose();
  lin.jv[0] = -sd;
  lin.jw[0] = -(sd * skew(p.ra).transpose());
  lin.lambda = sd * j.linear_impulse;  // warm start kept in the world frame: see joint.h
  out.push_back(lin);
  if (!j.has_angular_block()) return;

  // Angular block: relative rotation locked (fixed, slider) or free about the hinge axis.
  ConstraintBlock ang;
  ang.body = {j.body_a, j.body_b};
  ang.joint = joint_index;
  ang.angular = true;
  Mat3 da = j.kind == JointKind::Hinge ? axis_rows(p.axis) : Mat3::Identity();
  Vec3 sa(1, 1, 1);
  if (j.kind == JointKind::Hinge) {
    sa[2] = -1;
    if (has_limit_row(j, true)) {
      double value = joint_coordinate(j, bodies);
      double rate = p.axis.dot(a.w - b.w);
      set_limit_row(j, value, rate, h, ang);
    } else {
      ang.kind[2] = RowKind::Unused;
    }
  }
  Mat3 sda = sa.asDiagonal() * da;
  ang.jw[1] = sda;
  ang.jw[0] = -sda;
  ang.lambda = sda * j.angular_impulse;
  out.push_back(ang);
}

Vec3 joint_block_position_error(const JointSim& j, const ConstraintBlock& block,
                                const std::vector<RigidBodySim>& bodies) {
  const JointPose p = joint_pose(j, bodies);
  Vec3 c = Vec3::Zero();
  if (!block.angular) {
    Vec3 gap = p.pb - p.pa;
    if (j.kind == JointKind::Slider) {
      Mat3 d = axis_rows(p.axis);
      c[0] = d.row(0).dot(gap);
      c[1] = d.row(1).dot(gap);
    } else {
      c = gap;
    }
  } else {
    if (j.kind == JointKind::Hinge) {
      const Vec3 e = hinge_misalignment(j, p);
      Mat3 d = axis_rows(p.axis);
      c[0] = d.row(0).dot(e);
      c[1] = d.row(1).dot(e);
    } else {
      c = angular_error(j, p);
    }
  }
  if (block.kind[2] == RowKind::LimitLower || block.kind[2] == RowKind::LimitUpper ||
      (block.limit_active[2] && block.kind[2] == RowKind::Equality)) {
    const double value = joint_coordinate(j, bodies);
    const double lo = (*j.limits)[0], hi = (*j.limits)[1];
    // Rows measure a − b: C < 0 below the lower limit, C > 0 above the upper one.
    c[2] = value < lo ? value - lo : value > hi ? value - hi : 0.0;
  }
  return c;
}

Mat3 block_schur_diagonal(const ConstraintBlock& b, const std::vector<RigidBodySim>& bodies) {
  Mat3 d = Mat3::Zero();
  for (int s = 0; s < 2; ++s) {
    if (b.body[s] < 0 || !bodies[b.body[s]].dynamic) continue;
    const RigidBodySim& body = bodies[b.body[s]];
    d += body.inv_mass * b.jv[s] * b.jv[s].transpose() +
         b.jw[s] * body.inv_inertia_world * b.jw[s].transpose();
  }
  return d;
}

JointError measure_joint_error(const JointSim& j, const std::vector<RigidBodySim>& bodies) {
  const JointPose p = joint_pose(j, bodies);
  JointError err;
  Vec3 gap = p.pb - p.pa;
  if (j.kind == JointKind::Slider) gap -= p.axis * p.axis.dot(gap);
  err.linear = gap.norm();
  if (j.has_angular_block()) {
    err.angular = (j.kind == JointKind::Hinge ? hinge_misalignment(j, p) : angular_error(j, p)).norm();
  }
  return err;
}

double joint_coordinate(const JointSim& j, const std::vector<RigidBodySim>& bodies) {
  const JointPose p = joint_pose(j, bodies);
  if (j.kind == JointKind::Slider) return p.axis.dot(p.pa - p.pb);
  if (j.kind != JointKind::Hinge) return 0;
  // Rotation of a relative to b since t = 0, in b's axes: d = (q_b⁻¹ q_a) rest⁻¹.
  Quat d = (p.qb.conjugate() * p.qa) * j.rest_relative.conjugate();
  double angle = 2.0 * std::atan2(d.vec().dot(j.axis_b), d.w());
  if (angle > kPi) angle -= 2 * kPi;
  if (angle <= -kPi) angle += 2 * kPi;
  return angle;
}

}  // namespace impetus
