#pragma once
// SceneDef → MJCF (MuJoCo 2.2.2's XML model format), so that MuJoCo runs the very scene that
// impetus's loader read:
//   static (and kinematic) bodies → geoms of the worldbody at their pose; a plane → an
//     infinite plane geom whose z is the normal;
//   dynamic bodies → bodies named "b<scene index>"; joints form a kinematic tree: each joint
//     makes body a the child of body b (or, when a already has a parent, b the child of a);
//     tree roots get a freejoint, a ball joint → type="ball", hinge → "hinge" with range
//     (angle of child relative to parent, negated when the joint was flipped), slider →
//     "slide", fixed → no joint (welded to the parent). Joints that would close a loop become
//     equality constraints (ball → connect, others → weld) plus a contact exclusion.
//   mass and inertia: explicit <inertial> from impetus's mass properties;
//   friction: geom friction = the material's μ (MuJoCo combines by max);
//   restitution e: contact solref; e = 0 keeps MuJoCo's default (0.02, 1); e > 0 uses the
//     direct form (−1/τ², −2ζ/τ) with τ = 0.02 s and ζ = −ln e / √(π² + ln² e), i.e. the
//     default's stiffness with the damping ratio of a spring–damper that bounces back e (e = 1:
//     no damping).
// Contact and constraint buffers (nconmax, njmax) are sized from the body count, within
// MuJoCo 2.2.2's 2 GiB data buffer; where pyramidal friction cones (the default) do not fit,
// elliptic ones are used (MjcfModel::elliptic_cones). Above 1,000 degrees of freedom the CG
// solver replaces the default Newton solver, whose steps take seconds there.
#include <string>
#include <vector>

#include "engine/world_def.h"

namespace impetus::peers {

struct MjcfModel {
  std::string xml;
  /// MuJoCo body name per scene body ("" for bodies that are worldbody geoms).
  std::vector<std::string> body_names;
  int tree_joints = 0;      // joints modelled as tree joints (exact in reduced coordinates)
  int loop_joints = 0;      // joints modelled as equality constraints
  int nconmax = 0;
  int njmax = 0;
  int nv = 0;
  bool elliptic_cones = false;  // MuJoCo's default pyramidal cones would not fit in memory
  bool cg_solver = false;       // over 1,000 dofs: CG instead of the default Newton solver
};

/// Contact solref damping ratio ζ for restitution e (0 < e ≤ 1): −ln e / √(π² + ln² e).
double restitution_damping_ratio(double e);

/// Throws std::runtime_error for content MuJoCo cannot take here (cloth, convex, mesh).
MjcfModel build_mjcf(const SceneDef& scene);

}  // namespace impetus::peers
