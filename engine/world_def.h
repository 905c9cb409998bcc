#pragma once
// Definition structs: everything needed to build a World, with defaults and units. The JSON
// scene loader only fills these; an embedding program fills them directly.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "collision/base/math.h"
#include "collision/shape/shape.h"
#include "engine/filter.h"
#include "engine/world_ids.h"

namespace impetus {

enum class MotionType { Static, Kinematic, Dynamic };
enum class SolverType { SequentialImpulse, Block };

struct MaterialDef {
  std::string name = "default";
  double density = 1000;    // kg/m³
  double friction = 0.5;    // Coulomb μ
  double restitution = 0;   // 0..1
};

struct BodyDef {
  std::string name;                           // unique
  MotionType motion = MotionType::Dynamic;
  Shape shape;                                // in the body frame
  Vec3 position = Vec3::Zero();               // body frame origin, world [m]
  Quat orientation = Quat::Identity();        // body frame, world
  Vec3 linear_velocity = Vec3::Zero();        // of the centre of mass, world [m/s]
  Vec3 angular_velocity = Vec3::Zero();       // world [rad/s]
  int material = 0;                           // index into WorldDef::materials
  std::optional<double> mass;                 // kg; default density × volume
  Filter filter;                              // which bodies it collides with (engine/filter.h)
  // A sensor reports the overlaps of its shape as contact events (World::contact_events) and
  // has no contact response: bodies pass through it, CCD and cloth ignore it, it wakes nothing.
  // Static, kinematic or dynamic; two sensors never report each other; `filter` applies.
  bool is_sensor = false;
};

enum class JointType { Ball, Hinge, Fixed, Slider };

/// What a joint is, apart from its bodies; JointDef (the World's) and SceneJointDef (a scene
/// file's) add the bodies, as ids and as indices into SceneDef::bodies.
struct JointCommonDef {
  JointType type = JointType::Ball;
  Vec3 anchor = Vec3::Zero();     // world, at t = 0
  Vec3 axis = Vec3::UnitX();      // world, at t = 0 (hinge, slider)
  std::optional<std::array<double, 2>> limits;  // hinge [rad] / slider [m], a relative to b
};

struct JointDef : JointCommonDef {
  BodyId body_a;                  // a live body
  BodyId body_b;                  // a live body other than body_a, or the null id: the world
};

/// A joint as a scene file describes it (engine/world_builder.h turns it into a JointDef).
struct SceneJointDef : JointCommonDef {
  int body_a = -1;                // index into SceneDef::bodies
  int body_b = -1;                // index into SceneDef::bodies, -1 = the world
};

/// A cloth vertex that follows a body (its attached point moves with the body frame).
struct ClothAttachDef {
  int vertex = 0;
  BodyId body;                    // a live body
};

/// ClothAttachDef as a scene file describes it.
struct SceneClothAttachDef {
  int vertex = 0;
  int body = 0;                   // index into SceneDef::bodies
};

/// What a cloth is, apart from its attachments to bodies; ClothDef (the World's) and
/// SceneClothDef (a scene file's) add those, by body id and by body index.
struct ClothCommonDef {
  std::string name;
  // Either a grid ...
  bool is_grid = true;
  std::array<double, 2> grid_size = {1, 1};     // m
  std::array<int, 2> grid_resolution = {10, 10};  // quads per side
  Vec3 grid_center = Vec3::Zero();
  Quat grid_orientation = Quat::Identity();
  // ... or a mesh (already loaded, world frame at t = 0).
  std::vector<Vec3> mesh_vertices;
  std::vector<std::array<int, 3>> mesh_triangles;
  double areal_density = 0.1;       // kg/m²
  double stretch_stiffness = 1000;  // N/m
  double shear_stiffness = 100;     // N/m
  double bend_stiffness = 0.01;     // N·m
  double damping = 0.01;
  double thickness = 0.005;         // m
  double friction = 0.3;
  double strain_limit = 0.02;       // ClothParams::strain_limit; 0 = off
  std::vector<int> pin;
  bool self_collision = true;
};

struct ClothDef : ClothCommonDef {
  std::vector<ClothAttachDef> attach;  // vertices that follow a body
};

/// A cloth as a scene file describes it (engine/world_builder.h turns it into a ClothDef).
struct SceneClothDef : ClothCommonDef {
  std::vector<SceneClothAttachDef> attach;  // vertices that follow a body (by body index)
};

struct WorldDef {
  Vec3 gravity = Vec3(0, 0, -9.81);  // m/s²
  double dt = 1.0 / 240.0;           // s, > 0
  int substeps = 1;
  // Cut (sub-)steps longer than 1/240 s, or in which a non-round body would turn more than
  // 0.3 rad, into shorter ones (engine/world.cpp, substeps_per_step); false: exactly `substeps`.
  bool auto_substeps = true;
  int threads = 0;                   // 0 = all cores; results never depend on it
  bool ccd = true;
  // Contact events (World::contact_events, engine/world_events.cpp): the touching pairs are
  // tracked from step to step. They cost 1–6% of a pile's step (pairs near touching are
  // collided again at the end of the step); off, contact_events() stays empty and sensors report
  // nothing. Scene files leave them off (their runs write no events; build_world's callers may
  // turn them on in the WorldDef they pass).
  bool contact_events = true;
  std::uint64_t seed = 0;
  // Paper 5's block solver is the default; sequential impulses (`sequential_impulse`) stay as
  // the baseline. See README and dynamics/block_solver.h.
  SolverType solver = SolverType::Block;
  int solver_iterations = 20;        // sequential-impulse velocity iterations
  // Sleeping (engine/world_sleep.cpp): an island (dynamic bodies linked by contacts and joints)
  // whose every body moves slower than `sleep_speed` for `sleep_delay` seconds stops being
  // stepped until something awake touches it, the user moves it, or a joint partner wakes.
  bool sleep = true;
  double sleep_speed = 0.03;         // |v| + |ω|·r, r = bounding radius about the COM; spins
                                     // of a sphere (of a capsule about its axis) excluded [m/s]
  double sleep_delay = 0.5;          // s
  std::vector<MaterialDef> materials = {MaterialDef{}};  // [0] is "default"
};

/// A whole scene: the world settings plus its content and run settings. Joints and cloths name
/// their bodies by index into `bodies`, as the file does by name (no World exists yet).
struct SceneDef {
  std::string name;
  std::string description;
  WorldDef world;
  std::vector<BodyDef> bodies;
  std::vector<SceneJointDef> joints;
  std::vector<SceneClothDef> cloths;
  long long steps = 0;      // total steps (duration / dt rounded, or settings.steps)
  int output_every = 0;     // 0 = default (≈100 frames)
};

}  // namespace impetus
