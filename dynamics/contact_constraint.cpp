#include "dynamics/contact_constraint.h"

#include "dynamics/rigid_body.h"

namespace impetus {

void prepare_contact_geometry(ContactConstraint& c, const RigidBodySim& a, const RigidBodySim& b,
                              double h, double restitution_threshold) {
  Vec3 p = 0.5 * ((a.x + quat_rotate(a.q, c.anchor_a)) + (b.x + quat_rotate(b.q, c.anchor_b)));
  c.ra = p - a.x;
  c.rb = p - b.x;
  double vn = (b.point_velocity(p) - a.point_velocity(p)).dot(c.normal);
  // A contact that closes its gap within this step bounces as if it touched now (the ball
  // reverses at most one step's travel early); otherwise a speculative contact may close its
  // gap but no more.
  const bool closes_this_step = c.separation <= 0 || vn * h < -c.separation;
  if (c.restitution > 0 && vn < -restitution_threshold && closes_this_step) {
    c.velocity_target = -c.restitution * vn;  // paper 5, eq. 5 (Newton's law of restitution)
  } else if (c.separation > 0) {
    c.velocity_target = -c.separation / h;
  } else {
    c.velocity_target = 0;
  }
}

double contact_separation(const ContactConstraint& c, const RigidBodySim& a, const RigidBodySim& b) {
  return ((b.x + quat_rotate(b.q, c.anchor_b)) - (a.x + quat_rotate(a.q, c.anchor_a))).dot(c.normal);
}

}  // namespace impetus
