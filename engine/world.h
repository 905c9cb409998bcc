#pragma once
// The World: rigid bodies, joints and cloth stepped together. Built from definition structs;
// hands out small typed ids, never pointers into arrays that may move.
//
// Misuse is reported, never undefined: every public function given an invalid def (a rule of
// world_def.h broken, a non-finite value), a null, foreign, stale (destroyed) or out-of-range
// id, or a cloth index out of range throws std::invalid_argument whose message names the
// function and the problem ("World::body_state: invalid body id {index 9, generation 1} (the
// world has 3 bodies)"), and leaves the world exactly as it was.
//
// Ids (engine/world_ids.h) are slot index + generation. Destroying a body, joint or cloth frees
// its slot; the next create of that kind takes the most recently freed slot with the
// generation one higher. Bodies live in their slot (body_count() counts slots, free ones
// included); joints and cloths are kept in creation order without gaps (joint_count() and
// cloth_count() count live ones, and a cloth index shifts down when an earlier cloth goes).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <array>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "engine/world_def.h"

namespace impetus {

/// The closest hit of World::ray_cast, or one of World::ray_cast_all's.
struct RayHit {
  BodyId body;                   // the body hit; the null id when a cloth was hit
  Vec3 point = Vec3::Zero();     // world [m]
  Vec3 normal = Vec3::UnitZ();   // world, unit, against the ray
  double fraction = 0;           // along the translation, in [0, 1]
  ClothId cloth;                 // QueryFilter::include_cloth: the cloth hit, else the null id
  int triangle = -1;             // ... and its triangle (cloth_triangles), else -1
};

/// The first contact of World::shape_cast's swept shape.
struct ShapeCastHit {
  BodyId body;
  Vec3 point = Vec3::Zero();     // world, on the body's surface at the time of impact [m]
  Vec3 normal = Vec3::UnitZ();   // world, unit, from the body towards the cast shape
  double fraction = 0;           // along the translation, in [0, 1]
};

enum class ContactEventType { Begin, End };

/// Two bodies started (Begin) or stopped (End) touching in the last step; sensors report the
/// overlaps of their shapes the same way. Touching = the narrowphase finds a point with
/// separation <= 1 µm between the shapes at the end of the step (resting contacts end their
/// steps within round-off of zero, on either side), or the solver pushed the two apart in the
/// step (a bounce: speculative contacts turn a body round before the shapes meet). Details in
/// engine/world_events.cpp.
struct ContactEvent {
  BodyId a, b;                   // a.index < b.index; End: either may be destroyed by now
  ContactEventType type = ContactEventType::Begin;
  // Begin only (zero for End):
  Vec3 point = Vec3::Zero();     // the deepest point (midway between the two surfaces) at the
                                 // end of the step, or at the step's last narrowphase for a
                                 // pair that bounced apart beyond the contact margin, world [m]
  Vec3 normal = Vec3::UnitZ();   // at that point, unit, from a to b
  double approach_speed = 0;     // closing speed along `normal` at `point` (> 0: closing), from
                                 // the velocities the step's last substep had before its solver
                                 // ran (after gravity): the speed of the impact [m/s]
};

/// Kinematic state of a body as users see it: the body frame (not the centre of mass).
struct BodyState {
  Vec3 position = Vec3::Zero();          // body frame origin, world [m]
  Quat orientation = Quat::Identity();
  Vec3 linear_velocity = Vec3::Zero();   // of the centre of mass, world [m/s]
  Vec3 angular_velocity = Vec3::Zero();  // world [rad/s]
};

/// The phases of World::step (../shared/DESIGN.md), for the phase timers. The timers are arrays
/// indexed by phase, not string maps: the step adds to them without building a key.
enum class StepPhase : int { Forces, Broadphase, Narrowphase, Solver, Ccd, Integrate, Cloth, Sleep, Count };
inline constexpr int kStepPhaseCount = static_cast<int>(StepPhase::Count);
/// The key of a phase in summary.json's stats.ms_per_step_by_phase ("forces", "broadphase", ...).
const char* step_phase_name(StepPhase phase);

/// The cloth step's sub-phases, summed over cloths (keys "cloth.<name>" in summary.json).
enum class ClothPhase : int {
  InternalForces, Solve, StrainLimit, Rigid, Culling, Ccd, Response, IntersectionCount, Count
};
inline constexpr int kClothPhaseCount = static_cast<int>(ClothPhase::Count);
/// "internal_forces", "solve", "strain_limit", "rigid", "culling", "ccd", "response",
/// "intersection_count".
const char* cloth_phase_name(ClothPhase phase);

/// Per-step statistics, accumulated over the run.
struct WorldStats {
  long long steps = 0;
  std::array<double, kStepPhaseCount> phase_seconds{};  // wall-clock seconds, by StepPhase
  int contacts_last = 0;      // contact points in the last step
  int contacts_max = 0;
  double max_penetration = 0; // deepest overlap seen at the end of any step [m]
  double joint_error_max = 0;
  double joint_angle_error_max = 0;
  // Block solver (paper 5): how the islands were solved.
  int active_set_iterations_max = 0;   // most active-set iterations one island needed
  long long exact_island_solves = 0;   // islands solved by exact block elimination
  long long iterative_island_solves = 0;  // islands solved by projected block Gauss–Seidel
  long long active_set_fallbacks = 0;  // active set did not settle; iterative method finished
  // Exact attempts that did not give the island's solution (budget overrun, cycling, energy
  // check), and attempts the cost model allowed but a big island's own earlier failures
  // skipped (IslandBlockSolver::choose_exact); both islands were then solved iteratively.
  long long exact_attempts_failed = 0;
  long long exact_attempts_skipped = 0;
  // Cloth: seconds per sub-phase (by ClothPhase), summed over cloths and steps (all zero in a
  // world without cloth); self-intersections seen after any step.
  std::array<double, kClothPhaseCount> cloth_phase_seconds{};
  int cloth_self_intersections_max = 0;
  // Sleeping islands: bodies asleep at the end of the last step, and Σ over steps of that count.
  int bodies_asleep = 0;
  long long sleeping_body_steps = 0;
};

enum class WorldStatus { Ok, Diverged };

class World {
 public:
  explicit World(const WorldDef& def);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  /// Adds a body (in the most recently freed slot, else a new one). The def must be valid
  /// (positive finite sizes, finite pose and velocities, unit quaternion, a static plane, an
  /// existing material ...); see the misuse note above.
  BodyId create_body(const BodyDef& def);
  /// Removes a body, its joints and its cloth attachments (those cloth vertices become free),
  /// its contacts and warm-start impulses; wakes the islands of the bodies it touched or was
  /// jointed to. Its touching pairs get their End events from the next step. The id, and the
  /// ids of its joints, are stale from now on.
  void destroy_body(BodyId id);
  /// Adds a joint between two live bodies (body_b null: the world). Throws
  /// std::invalid_argument for invalid defs (unknown or stale body, a joint between two
  /// non-dynamic bodies, zero axis).
  JointId create_joint(const JointDef& def);
  /// Removes a joint and wakes its bodies' islands.
  void destroy_joint(JointId id);
  /// Live joints.
  int joint_count() const;
  /// Adds a cloth (grid or mesh, world frame at t = 0). Attached vertices follow their body
  /// from its pose now. Throws std::invalid_argument for invalid defs (an attachment to a
  /// stale id or to a sensor included).
  ClothId create_cloth(const ClothDef& def);
  void destroy_cloth(ClothId id);
  /// Live cloths. A cloth `index` below is in [0, cloth_count()): the live cloths in creation
  /// order; cloth_id(index) gives the cloth's id.
  int cloth_count() const;
  ClothId cloth_id(int index) const;
  const std::string& cloth_name(int index) const;
  const std::vector<Vec3>& cloth_positions(int index) const;
  const std::vector<std::array<int, 3>>& cloth_triangles(int index) const;
  /// Exact number of intersecting non-adjacent triangle pairs at the end of the last step.
  int cloth_self_intersections(int index) const;
  /// Largest stretch (edge length / rest length − 1) of the cloth now, and at the end of any
  /// step so far; largest compression (1 − edge length / rest length) now.
  double cloth_max_strain(int index) const;
  double cloth_max_strain_seen(int index) const;
  double cloth_max_compression(int index) const;
  // The same by id.
  const std::string& cloth_name(ClothId id) const;
  const std::vector<Vec3>& cloth_positions(ClothId id) const;
  const std::vector<std::array<int, 3>>& cloth_triangles(ClothId id) const;
  int cloth_self_intersections(ClothId id) const;
  double cloth_max_strain(ClothId id) const;
  double cloth_max_strain_seen(ClothId id) const;
  double cloth_max_compression(ClothId id) const;

  /// True for the id of a live body, joint or cloth; false for null, foreign and stale ids.
  bool is_valid(BodyId id) const;
  bool is_valid(JointId id) const;
  bool is_valid(ClothId id) const;
  /// Body slots, live and free: body_id(index) for index in [0, body_count()) is the live
  /// body's id, or the null id for a free slot (destroyed and not yet reused).
  int body_count() const;
  BodyId body_id(int index) const;
  const std::string& body_name(BodyId id) const;
  MotionType body_motion(BodyId id) const;
  double body_mass(BodyId id) const;  // 0 for static and kinematic bodies
  BodyState body_state(BodyId id) const;
  /// Sets a kinematic or dynamic body's state (teleport); wakes it. The state must be finite
  /// and the orientation non-zero (it is normalised); a static body is misuse.
  void set_body_state(BodyId id, const BodyState& state);
  /// Applies an impulse [N s] at world point `point` [m] to a dynamic body now (its velocities
  /// change at once); wakes its island. No effect on static and kinematic bodies. Both vectors
  /// must be finite.
  void apply_impulse(BodyId id, const Vec3& impulse, const Vec3& point);
  /// True while the body belongs to a sleeping island (WorldDef::sleep): its velocities are zero
  /// and it is not stepped. Static and kinematic bodies never sleep.
  bool is_asleep(BodyId id) const;
  /// Wakes the body's sleeping island (no effect on an awake body) and restarts its rest timer.
  void wake_body(BodyId id);

  // ---- Queries (engine/world_query.cpp) ----
  // Against the bodies as they are now (moving bodies are taken still); cloth is not a body and
  // is reported only by ray casts given QueryFilter::include_cloth. A body is reported when query_accepts(filter, its filter) and it is no
  // sensor (unless filter.include_sensors). Results depend only on the world's state, never on
  // the thread count. Non-finite vectors, an invalid shape (the rules of BodyDef::shape) or a
  // zero quaternion are misuse; orientations are normalised.
  /// The closest body hit by the segment origin → origin + translation (ties: lowest body
  /// index). Convex shapes and planes are solid (a segment starting inside hits at fraction 0);
  /// meshes are surfaces, hit from either side (collision/query/ray_cast.h). With
  /// include_cloth, cloth triangles (their mid-surface, from either side) too; at equal fractions
  /// bodies come first, then cloths by index, then triangles by index.
  std::optional<RayHit> ray_cast(const Vec3& origin, const Vec3& translation,
                                 const QueryFilter& filter = {}) const;
  /// Every body the segment hits (its first hit on each), in order of fraction, then body index;
  /// with include_cloth, also each cloth's first hit (same order as ray_cast).
  /// All hits are found before the first call, so the callback may change the world.
  void ray_cast_all(const Vec3& origin, const Vec3& translation, const QueryFilter& filter,
                    const std::function<void(const RayHit&)>& callback) const;
  /// The bodies whose shapes overlap `shape` placed at (position, orientation), by body index.
  /// Shapes that only touch (signed distance 0, collision/distance/distance.h) overlap. Every pair of
  /// shape types, planes included (two planes overlap unless they face away from each other);
  /// a closed mesh counts as a solid, an open one as its surface (collision/distance/distance_mesh.h).
  std::vector<BodyId> overlap(const Shape& shape, const Vec3& position, const Quat& orientation,
                              const QueryFilter& filter = {}) const;
  /// The first body that `shape`, moved from (position, orientation) by `translation` without
  /// turning, touches; a shape touching or overlapping a body at the start hits it at fraction 0
  /// (ties: lowest body index). Conservative advancement (collision/continuous/time_of_impact.h) stops at
  /// most 1e-7 m short of contact, never past it. The point lies on the body's surface at that
  /// time, the normal points from the body towards the shape. A plane cannot be cast (misuse).
  std::optional<ShapeCastHit> shape_cast(const Shape& shape, const Vec3& position,
                                         const Quat& orientation, const Vec3& translation,
                                         const QueryFilter& filter = {}) const;

  // ---- Driving bodies (engine/world_drive.cpp) ----
  /// Sets the velocity of a kinematic or dynamic body's centre of mass (as BodyState); wakes its
  /// island and drops a pending kinematic target. Static bodies and non-finite values are misuse.
  void set_linear_velocity(BodyId id, const Vec3& velocity);
  /// Sets the angular velocity [rad/s, world]; otherwise as set_linear_velocity.
  void set_angular_velocity(BodyId id, const Vec3& velocity);
  /// Force [N] at world point `point` [m] on a dynamic body, applied over the whole next step (all
  /// its sub-steps), then cleared; calls add up. Its torque about the centre of mass is taken
  /// from the lever arm at the time of the call. Wakes the body's island. No effect on static and
  /// kinematic bodies (as apply_impulse); both vectors must be finite.
  void apply_force(BodyId id, const Vec3& force, const Vec3& point);
  /// Torque [N m, world] on a dynamic body over the next step, then cleared; as apply_force.
  void apply_torque(BodyId id, const Vec3& torque);
  /// A kinematic body ends the next step exactly at this pose of its body frame: its velocities
  /// are set to (target − now)/dt for the centre of mass, and the rotation vector of the
  /// relative rotation (the shorter way round)/dt, and stay so after that step. Other bodies and
  /// a non-finite pose or zero quaternion are misuse; set_body_state and the velocity setters
  /// drop a pending target.
  void set_kinematic_target(BodyId id, const Vec3& position, const Quat& orientation);

  // ---- Events of the last step (engine/world_events.cpp) ----
  /// Begin/End events of the last step (ContactEvent): first the Ends, then the Begins, each
  /// sorted by (a.index, b.index); the same for any thread count. Pairs that never touch by
  /// rule have no events: filtered out, jointed, two sensors, two non-dynamic bodies (unless one
  /// is a sensor and one of them moves). Valid until the next step(); empty before the first,
  /// and always empty when WorldDef::contact_events is off (scene files turn it off).
  std::span<const ContactEvent> contact_events() const;

  /// Advances by def.dt (in def.substeps substeps). After divergence, step() does nothing.
  void step();
  WorldStatus status() const;
  /// Human-readable reason for divergence: which body, which step, what was seen.
  const std::string& divergence_message() const;

  long long step_count() const;
  double time() const;
  const WorldDef& def() const;
  const WorldStats& stats() const;
  /// Σ ½ m‖v‖² + ½ ωᵀIω − m g·x_com over dynamic bodies [J].
  double total_energy() const;
  /// Contact points of the last step (for trajectory output; sensors have none).
  int contact_count() const;
  /// Deepest rigid overlap at the end of the last step [m].
  double current_max_penetration() const;
  /// Largest distance between a joint's two anchor points at the end of the last step [m].
  double current_joint_error() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace impetus
