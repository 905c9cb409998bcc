#pragma once
// Time integration of rigid bodies: symplectic Euler for the linear part; for rotation the
// body-frame Euler equations are advanced with the implicit midpoint rule, which conserves the
// kinetic energy ½ωᵀIω and |L| of a free body exactly (both are quadratic invariants), so an
// asymmetric body spins without gaining or losing energy and its gyroscopic precession is right.
#include <vector>

#include "dynamics/rigid_body.h"

namespace impetus {

/// Velocity update of one dynamic body over h: gravity, then the gyroscopic term.
void integrate_velocity(RigidBodySim& body, const Vec3& gravity, double h);

/// Position update of one moving body over h with its current velocities: x += v h and
/// q ← exp(ω h) q. The body-frame angular velocity is kept (ω rotates with the body), so a free
/// body's kinetic energy is unchanged by this half of the step.
void integrate_position(RigidBodySim& body, double h);

}  // namespace impetus
