#include "dynamics/integrator.h"

namespace impetus {

namespace {

// Solves J s = g for a 3×3 J by its adjugate: J⁻¹ = [r1×r2, r2×r0, r0×r1] / det with r_i J's
// rows. The Newton matrix below is 2I plus an O(h|ω|) term, far from singular for any step
// the integrator takes, so pivoting buys nothing; Eigen's partial-pivoting LU was 5% of
// capsule_chain_50's step.
Vec3 solve3(const Mat3& j, const Vec3& g) {
  const Vec3 r0 = j.row(0), r1 = j.row(1), r2 = j.row(2);
  const Vec3 c0 = r1.cross(r2), c1 = r2.cross(r0), c2 = r0.cross(r1);
  return (c0 * g.x() + c1 * g.y() + c2 * g.z()) / r0.dot(c0);
}

// Implicit midpoint for dω/dt = −I⁻¹(ω × Iω) in body axes:
//   I(ω1 − ω0) + h·(m × I m) = 0 with m = (ω0 + ω1)/2.
// Newton on g(m) = I(2m − 2ω0) + h·(m × I m): J = 2I + h·(skew(m) I − skew(I m)).
Vec3 gyroscopic_midpoint(const Mat3& inertia, const Vec3& w0, double h) {
  Vec3 m = w0;
  for (int iter = 0; iter < 8; ++iter) {
    Vec3 im = inertia * m;
    Vec3 g = inertia * (2.0 * (m - w0)) + h * m.cross(im);
    Mat3 jac = 2.0 * inertia + h * (skew(m) * inertia - skew(im));
    Vec3 step = solve3(jac, g);
    m -= step;
    if (step.squaredNorm() <= 1e-30 * (1.0 + m.squaredNorm())) break;
  }
  return 2.0 * m - w0;
}

}  // namespace

void integrate_velocity(RigidBodySim& body, const Vec3& gravity, double h) {
  if (!body.dynamic) return;
  body.v += h * gravity;
  Vec3 w_body = quat_rotate(body.q.conjugate(), body.w);
  body.w = quat_rotate(body.q, gyroscopic_midpoint(body.inertia_local, w_body, h));
}

void integrate_position(RigidBodySim& body, double h) {
  if (!body.moving) return;
  body.x += h * body.v;
  // Rotating about ω leaves the world ω unchanged, so the body-frame ω is kept as it is.
  body.q = (quat_from_rotation_vector(h * body.w) * body.q).normalized();
  body.refresh_world_inertia();
}

}  // namespace impetus
