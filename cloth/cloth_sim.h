#pragma once
// One simulated cloth: the public API the World drives (engine → cloth → collision; nothing
// here knows about engine/). Build it from a ClothMesh and ClothParams, then call step() once
// per world step after the rigid bodies have moved:
//
//   ClothSim cloth(make_grid_cloth(...), params);
//   std::vector<RigidImpulse> reactions;
//   cloth.step(dt, gravity, colliders, reactions);  // then apply `reactions` to the bodies
//
// A step is: internal forces → backward-Euler solve (cloth_model.h, implicit_solver.h) →
// strain limit (strain_limit.h) → cloth–rigid contact (cloth_rigid.h) → self-collision
// (self_collision.h) → commit, each timed in ClothStats. With the same inputs the result is
// bit-identical for any thread count.
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "cloth/cloth_mesh.h"
#include "cloth/cloth_params.h"
#include "cloth/rigid_collider.h"

namespace impetus {

struct ClothStats {
  // Seconds spent in each phase of the last step.
  double seconds_internal_forces = 0;  // element forces/Jacobians and system assembly
  double seconds_solve = 0;            // PCG
  double seconds_strain_limit = 0;     // strain-limit sweeps
  double seconds_rigid = 0;            // cloth–rigid contact
  double seconds_culling = 0;          // self-collision BVH refits and traversals
  double seconds_ccd = 0;              // vertex–triangle / edge–edge CCD tests
  double seconds_response = 0;         // proximity, impulses, impact zones
  double seconds_intersection_count = 0;
  int cg_iterations = 0;
  int strain_limit_sweeps = 0;   // Gauss–Seidel sweeps of the strain limit (strain_limit.h)
  int strain_limited_edges = 0;  // edges beyond the limit after the solve
  double max_strain = 0;         // largest stretch, edge length / rest length − 1, end of step
  double max_compression = 0;    // largest compression, 1 − edge length / rest length
  double cg_residual = 0;
  long long pairs_after_culling = 0;  // triangle pairs of the first CCD traversal (no common vertex)
  long long primitive_tests = 0;      // CCD primitive pairs over all passes
  long long culled_nodes = 0;
  int proximity_contacts = 0;
  int ccd_contacts = 0;
  int ccd_passes = 0;
  int impact_zones = 0;
  int impact_zone_vertices = 0;
  bool frozen = false;  // the impact-zone fail-safe kept the cloth at its start state
  int rigid_contacts = 0;
  int rigid_swept_contacts = 0;  // triangles held by the continuous cloth–rigid test
  double rigid_max_penetration = 0;  // before the push-out [m]
  int self_intersections = -1;       // exact count at the end of the step; −1 if not counted
};

class ClothSim {
 public:
  ClothSim(const ClothMesh& mesh, const ClothParams& params);
  ~ClothSim();
  ClothSim(ClothSim&&) noexcept;
  ClothSim& operator=(ClothSim&&) noexcept;
  ClothSim(const ClothSim&) = delete;
  ClothSim& operator=(const ClothSim&) = delete;

  /// Advance by h [s]. `colliders` are the rigid bodies at the end of the step; reactions on
  /// them are appended to `reactions` (not cleared). Attached vertices follow the collider
  /// whose `body` matches their attachment (or stay put if it is absent).
  void step(double h, const Vec3& gravity, std::span<const RigidCollider> colliders,
            std::vector<RigidImpulse>& reactions);

  int vertex_count() const;
  const std::vector<std::array<int, 3>>& triangles() const;
  const std::vector<Vec3>& positions() const;
  const std::vector<Vec3>& velocities() const;
  const std::vector<double>& masses() const;
  const ClothParams& params() const;
  const ClothStats& stats() const;

  /// Replace the state (e.g. to restart from a recorded frame); sizes must match.
  void set_state(const std::vector<Vec3>& positions, const std::vector<Vec3>& velocities);
  /// Attach `vertex` to rigid body `body` (RigidCollider::body) at its current position, given
  /// the body's pose now: from then on it follows body_pose.apply(local point) and the body
  /// receives the reaction. Same as listing it in ClothParams::attached.
  void attach(int vertex, int body, const Pose& body_pose);
  /// Drops every attachment to `body` (the World destroyed it): those vertices become free,
  /// unless they are also pinned, and keep their position and velocity.
  void detach_body(int body);

  double kinetic_energy() const;
  /// −Σ m g·x.
  double gravitational_energy(const Vec3& gravity) const;
  double elastic_energy() const;
  /// Exact count of intersecting triangle pairs with no common vertex at the current state.
  int count_self_intersections();
  /// Largest stretch, edge length / rest length − 1, over the mesh (0 if no edge is stretched).
  double max_edge_strain() const;
  /// Largest compression, 1 − edge length / rest length, over the mesh.
  double max_edge_compression() const;
  /// The largest max_edge_strain() at the end of any step so far (0 before the first step).
  double max_edge_strain_seen() const;
  double mean_edge_strain() const;

  /// Called with (x0, u) right before self-collision handling (tests record CCD inputs).
  std::function<void(const std::vector<Vec3>&, const std::vector<Vec3>&)> before_self_collision;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace impetus
