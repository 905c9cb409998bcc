#pragma once
// Contact constraints as the solvers see them: one entry per contact point, built from the
// narrowphase manifolds each step. Impulses are accumulated per point and carried to the next
// step (warm starting) through `key`.
#include <cstdint>
#include <vector>

#include "collision/base/math.h"

namespace impetus {

struct ContactConstraint {
  int body_a = 0;                  // indices into the body array
  int body_b = 0;
  std::uint64_t key = 0;           // (pair, feature) identity for warm starting
  Vec3 normal = Vec3::UnitZ();     // a → b, world
  Vec3 tangent1 = Vec3::UnitX();
  Vec3 tangent2 = Vec3::UnitY();
  Vec3 anchor_a = Vec3::Zero();    // contact point on a, a's body axes relative to its COM
  Vec3 anchor_b = Vec3::Zero();    // contact point on b, b's body axes relative to its COM
  Vec3 ra = Vec3::Zero();          // world lever arms from the COMs (fixed during a solve)
  Vec3 rb = Vec3::Zero();
  double separation = 0;           // at the start of the step [m], < 0 overlap
  double slop = 0;                 // overlap left uncorrected [m]: the solver's linear slop,
                                   // less for small bodies (engine/world_solve.cpp)
  double friction = 0.5;           // combined μ
  double restitution = 0;          // combined e
  double normal_mass = 0;          // 1 / (J M⁻¹ Jᵀ) along the normal
  double tangent_mass[2] = {0, 0};
  double velocity_target = 0;      // desired normal relative velocity after the solve [m/s]
  double normal_impulse = 0;       // accumulated [N s]
  double tangent_impulse[2] = {0, 0};
  std::uint8_t mode = 1;           // block solver's active-set state (ContactMode), warm-started
};

/// The friction rows' directions for a contact normal n: t1 = any_orthogonal(n), t2 = n × t1.
/// The tangent impulses are stored in this basis, so whatever reads them back in the world
/// (warm starting across a changed normal) rebuilds it here.
inline void contact_tangents(const Vec3& n, Vec3& t1, Vec3& t2) {
  t1 = any_orthogonal(n);
  t2 = n.cross(t1);
}

}  // namespace impetus

namespace impetus {

struct RigidBodySim;

/// Lever arms (from the midpoint of the two witness points) and the normal velocity target:
/// contacts approaching faster than `restitution_threshold` that touch or would touch within
/// the step bounce with −e·vₙ (paper 5, eq. 5); other speculative contacts (separation > 0) may
/// close their gap this step but no more; slower touching ones get target 0 (resting contact).
void prepare_contact_geometry(ContactConstraint& c, const RigidBodySim& a, const RigidBodySim& b,
                              double h, double restitution_threshold);

/// Current separation of a contact's two anchor points along its normal [m] (< 0: overlap).
double contact_separation(const ContactConstraint& c, const RigidBodySim& a, const RigidBodySim& b);

}  // namespace impetus
