#pragma once
// World internals shared by the step phases (world.cpp: API and the step; world_collide.cpp:
// broadphase + narrowphase; world_solve.cpp: contact constraints and the solver).
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cloth/cloth_sim.h"
#include "collision/broadphase/broadphase.h"
#include "collision/narrowphase/contact.h"
#include "collision/continuous/extreme_vertex_diagram.h"
#include "collision/query/ray_cast.h"
#include "collision/shape/shape.h"
#include "dynamics/block_solver.h"
#include "dynamics/contact_constraint.h"
#include "dynamics/island.h"
#include "dynamics/joint.h"
#include "dynamics/rigid_body.h"
#include "dynamics/sequential_impulse_solver.h"
#include "dynamics/solver_assignment.h"
#include "engine/dense_ids.h"
#include "engine/warm_start.h"
#include "engine/world.h"

namespace impetus {

/// Extra distance at which contacts are created before shapes touch [m]; added to the motion
/// bound of the step (speculative contacts), so resting contacts never flicker on and off.
inline constexpr double kContactMargin = 0.005;

/// Contact margin of a dynamic body under 10 cm: this fraction of its smallest size. A 5 mm margin
/// is 2.5 diameters of a 1 mm sphere: every sphere of a pile got speculative contacts with the
/// spheres behind its neighbours, and the pile sank into itself (86% overlap; issue 16).
inline constexpr double kMarginSizeFraction = 0.05;

/// Overlap a contact leaves uncorrected, as a fraction of its smallest dynamic body's size: the
/// solvers' linear slop (0.05 mm) is 2.5% of a 1 mm sphere's diameter, and piles of such spheres
/// rested that deep in each other; bodies above 5 cm keep the solvers' slop.
inline constexpr double kSlopSizeFraction = 0.001;

/// Longest (sub-)step [s]: longer steps are cut into sub-steps (substeps_per_step). The solver's
/// iteration counts and margins are tuned at 240 Hz; at 30 and 60 Hz the box piles they hold at
/// 1–2 mm overlapped 11–22 mm.
inline constexpr double kMaxSolverStep = 1.0 / 240.0;

/// Largest rotation of a non-round dynamic body in one (sub-)step [rad] (substeps_per_step).
inline constexpr double kMaxStepRotation = 0.3;

/// CCD (world_ccd.cpp): a dynamic body whose surface may move more than this fraction of its
/// smallest size in a step is advanced only to its time of impact; below it, its speculative
/// margin covers the whole motion (and is capped there above it).
inline constexpr double kCcdMotionFraction = 0.25;
/// CCD stops a body this far short of contact [m] ...
inline constexpr double kCcdSafety = 0.2 * kContactMargin;
/// ... or, for a pair already touching, this much deeper than it already is [m].
inline constexpr double kCcdAllowedPenetration = 0.1 * kContactMargin;
/// Conservative advancement stops within this distance above its target [m].
inline constexpr double kCcdTolerance = 0.02 * kContactMargin;
inline constexpr int kCcdMaxIterations = 100;

/// Two bodies touch (contact events, world_events.cpp) when the narrowphase finds a point with
/// separation at most this [m] (or the solver pushed them apart): resting contacts end their
/// steps within round-off of zero, on either side, and must not flicker between touching and
/// not.
inline constexpr double kTouchingDistance = 1e-6;

struct World::Impl {
  WorldDef def;
  // Per body slot (BodyId::index). A destroyed body's slot is free until a create reuses it:
  // inert (a default RigidBodySim: static, not moving, never asleep; an empty shape; no
  // broadphase proxy), so every loop of the step that skips non-dynamic or non-moving bodies
  // skips it too; the loops that look at every body (cloth colliders, CCD's brute force) test
  // `live`.
  std::vector<std::uint32_t> body_generations;  // the live body's, or the next one's
  std::vector<char> live;                       // 1: a body, 0: a free slot
  std::vector<int> free_bodies;                 // free slots, the most recently freed last
  int live_bodies = 0;
  std::vector<RigidBodySim> bodies;       // hot state
  std::vector<Shape> shapes;              // cold: geometry in the body frame
  std::vector<double> bounding_radii;     // of the shape about the COM [m]
  std::vector<double> smallest_sizes;     // smallest_size(shape) [m] (CCD threshold)
  std::vector<double> margins;            // contact margin of the body [m] (body_margin)
  std::vector<std::string> names;
  std::vector<MotionType> motions;
  std::vector<int> materials;
  std::vector<double> masses;
  std::vector<Filter> filters;            // BodyDef::filter
  std::vector<char> sensors;              // BodyDef::is_sensor

  Broadphase broadphase;
  std::vector<std::pair<int, int>> pairs;  // sorted candidate pairs of this step
  std::vector<Manifold> manifolds;         // one slot per pair (parallel narrowphase)
  std::vector<double> pair_margins;
  // CCD (world_ccd.cpp).
  std::vector<Aabb> swept_boxes;           // per moving body: its broadphase box this step
  std::vector<Aabb> query_boxes_now;       // scratch: refresh_query_boxes' box of each mover
  std::vector<double> step_times;          // per body: time advanced this step; empty = all h
  std::vector<int> joint_group_parent;     // share_step_times_across_joints scratch
  std::vector<double> joint_group_time;
  std::vector<int> ccd_bodies;             // scratch: fast bodies this step, by index
  std::vector<int> ccd_slot;               // scratch: body → position in ccd_bodies or −1
  std::vector<Aabb> ccd_swept_now;         // scratch: every body's swept box after the solve
  std::vector<std::vector<int>> ccd_candidates;  // scratch, per fast body
  std::vector<double> ccd_times;           // scratch, per fast body
  std::vector<std::unique_ptr<ExtremeVertexDiagram>> ccd_diagrams;  // per body, built lazily
  std::vector<ContactConstraint> contacts; // in pair order, then point order
  std::vector<int> contact_offsets;        // per pair: its first contact (build_contacts)
  std::vector<CachedImpulse> warm_cache;   // sorted by key
  std::vector<JointSim> joints;           // creation order, no gaps
  DenseIds joint_ids;                     // joints[k]'s JointId
  std::vector<std::pair<int, int>> jointed_pairs;  // sorted (lower, higher): never collide
  SequentialImpulseSolver sequential_impulse;
  SequentialImpulseSettings solver_settings;
  std::vector<ConstraintBlock> si_joint_blocks;  // sequential-impulse path
  BlockSolverSettings block_settings;
  std::vector<Island> islands;                   // block path, rebuilt every substep
  std::vector<Island> sleep_islands;             // the sleep pass's, rebuilt when needed
  // Bodies woken so far (wake_island), and its value when the step's last solve built
  // `islands` (−1: not built this step): while they match, the sleep pass's islands would be
  // the same as the solver's (same awake bodies, contacts and joints).
  long long wake_count = 0;
  long long islands_built_at = -1;
  // build_awake_islands's inputs and union-find, kept between steps (no allocation).
  struct IslandInputs {
    std::vector<char> awake;
    std::vector<std::array<int, 2>> contact_bodies, joint_bodies;
    IslandScratch scratch;
  } island_inputs;
  // Island i is solved by island_solvers[solver_assignment.solver(i)]: solvers follow islands
  // from step to step (dynamics/solver_assignment.h).
  std::vector<IslandBlockSolver> island_solvers;
  SolverAssignment solver_assignment;
  // Solvers that may hold buffers (served an island since they last freed them): the ones
  // assign_island_solvers visits; solver_listed[j] says whether j is among them.
  std::vector<int> solvers_holding_buffers;
  std::vector<char> solver_listed;
  std::vector<MethodHistory> island_history;  // by place in the island list (assign_island_solvers)
  std::vector<int> island_order;  // islands, most blocks first (load balance)
  std::vector<IslandSolveInfo> island_info;

  struct Cloth {
    std::string name;
    ClothSim sim;
  };
  std::vector<Cloth> cloths;              // creation order, no gaps
  DenseIds cloth_ids;                     // cloths[k]'s ClothId
  /// The body's index; throws std::invalid_argument("World::FUNCTION: invalid body id ...")
  /// for a null, foreign, stale or out-of-range id.
  int check_body(BodyId id, const char* function) const;
  BodyId body_id_at(int index) const {
    return BodyId{static_cast<std::uint32_t>(index), body_generations[index]};
  }
  /// The joint's position in `joints`; throws likewise.
  int check_joint(JointId id, const char* function) const;
  /// The cloth; throws likewise for an index out of range or an invalid id.
  const Cloth& check_cloth(int cloth, const char* function) const;
  const Cloth& check_cloth(ClothId id, const char* function) const;
  /// Body `a` and `b` may get contacts or events: the filter rule and no two sensors.
  bool pair_allowed(int a, int b) const {
    return !(sensors[a] && sensors[b]) && should_collide(filters[a], filters[b]);
  }
  bool pair_has_sensor(int a, int b) const { return sensors[a] || sensors[b]; }
  std::vector<RigidCollider> cloth_colliders;  // scratch, reused
  std::vector<RigidImpulse> cloth_reactions;   // scratch, reused

  // Sleeping islands (world_sleep.cpp). Per-body vectors are sized lazily to bodies.size().
  struct SleptImpulse {  // warm-start record of a contact whose island fell asleep
    int island = 0;  // the sleeping island's label
    CachedImpulse impulse;
  };
  std::vector<double> sleep_time;        // per body: seconds spent below def.sleep_speed
  std::vector<int> sleep_island;         // per body: its sleeping island's label, −1 awake
  std::vector<SleptImpulse> slept_impulses;  // restored into warm_cache when they wake
  std::vector<char> pair_skipped;        // per pair: narrowphase skipped (nothing awake in it)
  std::vector<char> wake_marks;          // scratch, per island label
  std::vector<JointSim> awake_joints;    // sequential-impulse path: joints of awake bodies
  std::vector<int> awake_joint_index;    // awake_joints[k] is joints[awake_joint_index[k]]
  bool use_awake_joints = false;         // this substep's SI joint list is awake_joints
  int bodies_asleep = 0;

  // Contact events (world_events.cpp): pairs touching at the end of this step and of the last,
  // sorted by (a.index, b.index); this step's events; the last substep's body states before
  // its solver (for the approach speed) and each body's motion since then.
  struct TouchingPair {
    BodyId a, b;
    int pair = -1;  // index into `pairs`
  };
  std::vector<TouchingPair> touching, touching_before;
  std::vector<ContactEvent> events, begin_events;
  bool last_substep = false;              // set by step(): the substep that snapshots
  std::vector<Vec3> event_x, event_v, event_w;
  std::vector<Quat> event_q;
  std::vector<double> event_motion;       // per body: bound on any surface point's motion [m]
  std::vector<char> pair_touch;           // per pair: 0 no, 1 yes, 2 recheck at the end
  std::vector<int> event_rechecks;        // pairs to collide again at the end of the step
  std::vector<std::pair<int, int>> pushed_pairs;  // a contact pushed in a substep, sorted

  WorldStats stats;
  WorldStatus status = WorldStatus::Ok;
  std::string divergence_message;
  long long step_count = 0;
  double time = 0;
  double last_max_penetration = 0;
  double last_joint_error = 0;        // largest joint anchor gap at the end of the last step [m]

  // Before the first step: pushes bodies created inside one another apart (world_spawn.cpp).
  void separate_spawn_overlaps();
  // Phases of one (sub)step, in order (DESIGN.md, "The step").
  void substep(double h);
  void apply_forces(double h);
  void update_broadphase(double h);
  void run_narrowphase(double h);
  /// Sub-steps of one step: the scene's, more where they would exceed kMaxSolverStep.
  int substeps_per_step() const;
  void build_contacts();
  /// Pair k's contacts (build_contacts), warm-started from its records of the sorted cache:
  /// `cursor` walks on from the last pair's records (null: search).
  void build_pair_contacts(std::ptrdiff_t k, const CachedImpulse* cache_begin,
                           const CachedImpulse* cache_end, const CachedImpulse*& cursor);
  /// Overlap left uncorrected by a contact between bodies a and b [m] (kSlopSizeFraction).
  double contact_slop(int a, int b) const;
  void build_awake_islands(std::vector<Island>& out);  // awake dynamic bodies, contacts + joints
  void order_islands_by_size();
  void assign_island_solvers();
  /// Runs solve(i, threads) for every island too small to be dissected (world_solve.cpp).
  template <class Solve>
  void for_small_islands(Solve&& solve);
  void solve_contacts(double h);
  void stabilize_positions();
  // Sleeping (world_sleep.cpp).
  bool is_awake_mover(int i) const;       // awake dynamic, or kinematic with a velocity
  bool pair_needs_narrowphase(int a, int b) const;
  void wake_island(int body);             // wakes body's sleeping island (no-op if awake)
  void wake_touched_islands(double h);    // after narrowphase: contacts/joints with awake movers
  void wake_disturbed_bodies();           // sleeping bodies whose velocity something changed
  void update_sleep();                    // end of step: timers, islands, falling asleep
  std::vector<JointSim>& solver_joints(); // joints to hand the SI solver this substep
  void store_solver_joints();             // copies awake_joints' impulses back
  void measure_joint_errors();
  void step_cloths(double h);
  void run_ccd(double h);
  void share_step_times_across_joints();  // jointed bodies stop at their group's earliest TOI
  void integrate_positions(double h);
  void store_warm_start();
  void check_divergence();
  // Contact events (world_events.cpp).
  void snapshot_event_state();            // the last substep, after its narrowphase
  void record_pushed_pairs();             // every substep, after its solver
  void update_contact_events();           // end of step: touching pairs → events
  // Destruction (world_destroy.cpp).
  void remove_body(int body);
  void remove_joint(int position);        // position in `joints`
  void rebuild_jointed_pairs();

  /// Contact margin of body i: kContactMargin, less for small dynamic bodies (kMarginSizeFraction).
  double body_margin(int i) const;
  /// Narrowphase margin of a pair: the smaller contact margin plus both speculative motions.
  double pair_margin(int a, int b, double h) const;
  /// Motion bound of body i over h used in its speculative margin (capped for dynamic bodies).
  double speculative_motion(int i, double h) const;
  /// Box of body i swept over h with its current velocities, plus rotation and contact margin.
  Aabb swept_box(int i, double h) const;
  /// First time in [0, t_end] at which fast body i comes within the CCD target of body j.
  std::optional<double> pair_time_of_impact(int i, int j, double t_end);

  /// Adds the time since `start` to `phase` and returns now: the end of one phase is the start
  /// of the next, one clock read per boundary (two were 4% of newton_cradle's 7.6 µs step).
  std::chrono::steady_clock::time_point time_phase(StepPhase phase, std::chrono::steady_clock::time_point start);

  // Driving bodies (world_drive.cpp). Per body, sized by create_body: the step allocates nothing.
  std::vector<Vec3> forces;            // force of the next step [N], world (dynamic bodies)
  std::vector<Vec3> torques;           // torque about the COM of the next step [N m], world
  bool has_forces = false;             // some force or torque is non-zero
  std::vector<Pose> kinematic_targets; // COM pose a kinematic body ends the next step at
  std::vector<char> has_target;
  int target_count = 0;
  void apply_external_forces(double h);  // in apply_forces, only while has_forces
  void cancel_target(int body);
  /// set_linear/angular_velocity: the body's index once id, motion and value are checked (it
  /// throws before changing anything); drops the body's pending target.
  int check_velocity_change(BodyId id, const Vec3& velocity, const char* function);
  void finish_driving();               // end of step: snap to targets, clear the forces

  // Queries (world_query.cpp).
  /// End of step: grow the broadphase box of each body that moved out of it, so that queries
  /// between steps find every body from its box.
  void refresh_query_boxes();
  struct BodyRayHit {
    int body = 0;        // −1 for a cloth hit
    ShapeRayHit hit;
    int cloth = -1;      // dense cloth index, for a cloth hit
    int triangle = -1;
  };
  /// Whether a query with `filter` reports the body (QueryFilter; sensors on request).
  bool query_reports(int body, const QueryFilter& filter) const;
  /// Every reported body the segment hits, its first hit, in body index order.
  void ray_hits(const Vec3& origin, const Vec3& translation, const QueryFilter& filter,
                std::vector<BodyRayHit>& out) const;
  /// Ray hits in the order of World::ray_cast's ties: fraction, bodies before cloths, body
  /// index, cloth index.
  static bool ray_hit_before(const BodyRayHit& a, const BodyRayHit& b);
  /// The public form of a hit (ids from `world`).
  RayHit to_ray_hit(const BodyRayHit& hit, const World& world) const;
  /// Time in [0, t_end] at which `shape` moved from `pose` by t·translation first touches the
  /// body; nullopt if it does not.
  std::optional<double> cast_time(const Shape& shape, const Pose& pose, const Vec3& translation,
                                  int body, double t_end) const;
};

}  // namespace impetus
