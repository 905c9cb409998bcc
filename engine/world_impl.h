#pragma once
// World internals shared by the step phases (world.cpp: API and the step; world_collide.cpp:
// broadphase + narrowphase; world_solve.cpp: contact constraints and the solver).
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cloth/cloth_sim.h"
#include "collision/broadphase.h"
#include "collision/contact.h"
#include "collision/shape.h"
#include "dynamics/block_solver.h"
#include "dynamics/contact_constraint.h"
#include "dynamics/island.h"
#include "dynamics/joint.h"
#include "dynamics/rigid_body.h"
#include "dynamics/sequential_impulse_solver.h"
#include "engine/world.h"

namespace impetus {

/// Extra distance at which contacts are created before shapes touch [m]; added to the motion
/// bound of the step (speculative contacts), so resting contacts never flicker on and off.
inline constexpr double kContactMargin = 0.005;

/// Warm-start record of one contact point, keyed by (pair, feature).
struct CachedImpulse {
  std::uint64_t key = 0;
  double normal = 0;
  double tangent[2] = {0, 0};
  std::uint8_t mode = 1;
  bool operator<(const CachedImpulse& other) const { return key < other.key; }
};

struct World::Impl {
  WorldDef def;
  // Per body, dense index = creation order.
  std::vector<RigidBodySim> bodies;       // hot state
  std::vector<Shape> shapes;              // cold: geometry in the body frame
  std::vector<double> bounding_radii;     // of the shape about the COM [m]
  std::vector<std::string> names;
  std::vector<MotionType> motions;
  std::vector<int> materials;
  std::vector<double> masses;

  Broadphase broadphase;
  std::vector<std::pair<int, int>> pairs;  // sorted candidate pairs of this step
  std::vector<Manifold> manifolds;         // one slot per pair (parallel narrowphase)
  std::vector<double> pair_margins;
  std::vector<ContactConstraint> contacts; // built serially in pair order
  std::vector<CachedImpulse> warm_cache;   // sorted by key
  std::vector<JointSim> joints;
  std::vector<std::pair<int, int>> jointed_pairs;  // sorted (lower, higher): never collide
  SequentialImpulseSolver sequential_impulse;
  SequentialImpulseSettings solver_settings;
  std::vector<ConstraintBlock> si_joint_blocks;  // sequential-impulse path
  BlockSolverSettings block_settings;
  std::vector<Island> islands;                   // block path, rebuilt every substep
  std::vector<IslandBlockSolver> island_solvers; // one per island, reused across steps
  std::vector<IslandSolveInfo> island_info;

  struct Cloth {
    std::string name;
    ClothSim sim;
  };
  std::vector<Cloth> cloths;
  std::vector<RigidCollider> cloth_colliders;  // scratch, reused
  std::vector<RigidImpulse> cloth_reactions;   // scratch, reused

  WorldStats stats;
  WorldStatus status = WorldStatus::Ok;
  std::string divergence_message;
  long long step_count = 0;
  double time = 0;
  double last_max_penetration = 0;

  // Phases of one (sub)step, in order (DESIGN.md, "The step").
  void substep(double h);
  void apply_forces(double h);
  void update_broadphase(double h);
  void run_narrowphase(double h);
  void build_contacts();
  void solve_contacts(double h);
  void stabilize_positions();
  void measure_joint_errors();
  void step_cloths(double h);
  void integrate_positions(double h);
  void store_warm_start();
  void check_divergence();

  double time_phase(const char* name, std::chrono::steady_clock::time_point start);
};

}  // namespace impetus
