#include "dynamics/contact_constraint.h"

#include "dynamics/rigid_body.h"

namespace impetus {

void prepare_contact_geometry(ContactConstraint& c, const RigidBodySim& a, const RigidBodySim& b,
                              double h, double restitution_threshold) {
  Vec3 p = 0.5 * ((a.x + a.q * c.anchor_a) + (b.x + b.q * c.anchor_b));
  c.ra = p - a.x;
  c.rb = p - b.x;
  double vn = (b.point_velocity(p) - a.point_velocity(p)).dot(c.normal);
  if (c.separation > 0) {
    c.velocity_target = -c.separation / h;
  } else if (c.restitution > 0 && vn < -restitution_threshold) {
    c.velocity_target = -c.restitution * vn;
  } else {
    c.velocity_target = 0;
  }
}

}  // namespace impetus
