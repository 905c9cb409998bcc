#pragma once
// Material and solver parameters of one cloth, with the units the scene format uses
// (../shared/spec/scene-format.md, `cloths`). Plain values with defaults; no JSON here.
#include <cstdint>
#include <vector>

#include "collision/base/math.h"

namespace impetus {

/// How the self-collision BVH culls node self-tests with normal cones (papers/4).
enum class ConeCulling : std::uint8_t {
  None,         // no normal-cone culling: every overlapping box pair is tested
  ProvotTang3,  // leaf cones from Tang's 3 Bézier control points, Provot's merge (paper 4, eq. 1)
  Tight5pt,     // leaf cones from the 5 de Casteljau control points (minimum cone), Alg. 1 merge
};

/// "none", "provot_tang3", "tight_5pt".
const char* cone_culling_name(ConeCulling mode);

/// A cloth vertex that follows a rigid body: its position is body_pose.apply(local_point).
struct ClothAttachment {
  int vertex = 0;
  int body = -1;                    // RigidCollider::body of the body it follows
  Vec3 local_point = Vec3::Zero();  // in the body frame
};

struct ClothParams {
  double areal_density = 0.1;  // kg/m² of rest area
  // Membrane stiffnesses [N/m]: energy per rest area ½·k·ε² for a strain ε along the warp/weft
  // directions (stretch) or of the in-plane shear w_u·w_v (Baraff–Witkin conditions). Energy
  // density × rest area makes the behaviour independent of the mesh resolution.
  double stretch_stiffness = 1000;
  double shear_stiffness = 100;
  // Bending stiffness [N·m]: energy ½·k_b·∫(κ1 + κ2)² dA (isometric / quadratic bending).
  double bend_stiffness = 0.01;
  // Rayleigh stiffness-proportional damping coefficient [s]: damping force −damping·K·v on
  // the rates of the stretch, shear and bend conditions (rigid motions are not damped).
  double damping = 0.01;
  double thickness = 0.005;  // m: cloth–cloth and cloth–rigid separation kept by the response
  // Strain limit (strain_limit.h): no edge ends the implicit solve longer than (1 + ε) or
  // shorter than (1 − ε) times its rest length, ε = strain_limit; ≤ 0 turns limiting off (the
  // membrane stiffness alone then sets the stretch). 2% keeps the largest strain at the end of
  // a step, after the contact responses, under 3% on the benchmark hang and drape.
  double strain_limit = 0.02;
  double friction = 0.3;     // Coulomb μ; combined with a body's μ as √(μ_cloth·μ_body)
  std::vector<int> pinned;   // vertex indices held fixed in space
  std::vector<ClothAttachment> attached;
  bool self_collision = true;
  ConeCulling culling = ConeCulling::Tight5pt;
  int threads = 0;  // 0 = all cores; results never depend on it
  // In-plane reference ("warp") direction of the anisotropic stretch model. Zero: the direction
  // of the first edge of the first triangle (for a grid: its local x axis).
  Vec3 warp_direction = Vec3::Zero();

  // Solver controls.
  // PCG stopping test: relative residual (filtered, preconditioned norm, relative to the
  // right-hand side), floored at an RMS velocity error of cg_tolerance·h·|g| (the residual of
  // a free fall solved to that relative tolerance), so that a cloth near equilibrium, whose
  // right-hand side almost vanishes, does not chase round-off. With the incomplete-factorisation
  // preconditioner, 3e-3 on the 64 × 64 hang gives a mean stretch within 1% of 1e-3's and the
  // same sag to 0.2 mm, with two thirds of the iterations.
  double cg_tolerance = 3e-3;
  int cg_max_iterations = 400;
  // Strain-limit sweeps stop when no edge is beyond its bound by more than this strain.
  double strain_limit_tolerance = 1e-3;
  int strain_limit_sweeps = 8;
  int ccd_impulse_iterations = 6;  // CCD impulse passes before rigid impact zones take over
  int impact_zone_iterations = 64;  // then everything still colliding is frozen for the step
  bool count_self_intersections = true;  // exact count at the end of every step (stats)
};

}  // namespace impetus
