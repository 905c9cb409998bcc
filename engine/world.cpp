// World API and the step, read top to bottom (DESIGN.md, "The step"). The phases live in
// world_collide.cpp (broadphase, narrowphase) and world_solve.cpp (contacts, solver).
#include "engine/world.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "collision/base/parallel.h"
#include "collision/shape/mass_properties.h"
#include "dynamics/integrator.h"
#include "engine/world_impl.h"
#include "engine/world_validate.h"

namespace impetus {

World::World(const WorldDef& def) : impl_(std::make_unique<Impl>()) {
  validate_world_def(def);
  impl_->def = def;
  impl_->solver_settings.velocity_iterations = def.solver_iterations;
}

World::~World() = default;

BodyId World::create_body(const BodyDef& def) {
  Impl& w = *impl_;
  validate_body_def(def, static_cast<int>(w.def.materials.size()));
  if (w.bodies.size() >= static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw_world_misuse("create_body", "too many bodies");

  RigidBodySim sim;
  sim.q = def.orientation.normalized();
  sim.dynamic = def.motion == MotionType::Dynamic;
  sim.moving = def.motion != MotionType::Static;
  double mass = 0;
  if (def.shape.type != ShapeType::Plane) {
    MassProperties mp = def.mass ? compute_mass_properties_with_mass(def.shape, *def.mass)
                                 : compute_mass_properties(def.shape,
                                                           w.def.materials[def.material].density);
    sim.com_local = mp.center_of_mass;
    if (sim.dynamic) {
      mass = mp.mass;
      sim.inv_mass = 1.0 / mp.mass;
      sim.inertia_local = mp.inertia;
      sim.inv_inertia_local = mp.inertia.inverse();
    }
  }
  sim.x = def.position + sim.q * sim.com_local;
  if (sim.moving) {
    sim.v = def.linear_velocity;
    sim.w = def.angular_velocity;
  }
  sim.refresh_world_inertia();

  // The most recently freed slot (world_destroy.cpp), else a new one at the end.
  int index = static_cast<int>(w.bodies.size());
  if (!w.free_bodies.empty()) {
    index = w.free_bodies.back();
    w.free_bodies.pop_back();
  }
  auto put = [index](auto& per_body, auto value) {
    if (static_cast<std::size_t>(index) == per_body.size()) per_body.push_back(std::move(value));
    else per_body[index] = std::move(value);
  };
  put(w.bodies, sim);
  put(w.shapes, def.shape);
  double radius = 0;
  if (def.shape.is_bounded()) {
    // Bound about the COM, not the frame origin: the COM is what rotates in place.
    radius = bounding_radius(def.shape) + sim.com_local.norm();
  }
  put(w.bounding_radii, radius);
  put(w.smallest_sizes, smallest_size(def.shape));
  put(w.margins, 0.0);
  w.margins[index] = w.body_margin(index);
  // Post-stabilisation moves the body at most its contact margin per step: every surface it
  // can reach that way was within the narrowphase's margin, so its contact is in the solve.
  w.bodies[index].max_step_correction = w.margins[index];
  put(w.names, def.name);
  put(w.motions, def.motion);
  put(w.materials, def.material);
  put(w.masses, mass);
  put(w.filters, def.filter);
  put(w.sensors, static_cast<char>(def.is_sensor ? 1 : 0));
  put(w.forces, Vec3(Vec3::Zero()));
  put(w.torques, Vec3(Vec3::Zero()));
  put(w.kinematic_targets, Pose{});
  put(w.has_target, static_cast<char>(0));
  put(w.live, static_cast<char>(1));
  if (static_cast<std::size_t>(index) == w.body_generations.size()) w.body_generations.push_back(1);
  ++w.live_bodies;
  w.broadphase.add(index, compute_aabb(def.shape, sim.frame_pose()),
                   def.motion == MotionType::Static);
  return w.body_id_at(index);
}

bool World::is_valid(BodyId id) const {
  const Impl& w = *impl_;
  return id.generation != 0 && id.index < w.bodies.size() && w.live[id.index] &&
         w.body_generations[id.index] == id.generation;
}

int World::Impl::check_body(BodyId id, const char* function) const {
  if (id.generation == 0 || id.index >= bodies.size() || body_generations[id.index] != id.generation ||
      !live[id.index]) {
    std::string problem = "invalid body id {index " + std::to_string(id.index) + ", generation " +
                          std::to_string(id.generation) + "}";
    if (id.generation != 0 && id.index < bodies.size() && id.generation < body_generations[id.index])
      problem += ": destroyed";
    problem += " (the world has " + std::to_string(live_bodies) + " bodies";
    if (live_bodies != static_cast<int>(bodies.size()))
      problem += " in " + std::to_string(bodies.size()) + " slots";
    throw_world_misuse(function, problem + ")");
  }
  return static_cast<int>(id.index);
}

int World::body_count() const { return static_cast<int>(impl_->bodies.size()); }
BodyId World::body_id(int index) const {
  if (index < 0 || index >= body_count()) {
    throw_world_misuse("body_id", "index " + std::to_string(index) + " out of range (the world has " +
                                      std::to_string(body_count()) + " bodies)");
  }
  return impl_->live[index] ? impl_->body_id_at(index) : BodyId{};
}
const std::string& World::body_name(BodyId id) const {
  return impl_->names[impl_->check_body(id, "body_name")];
}
MotionType World::body_motion(BodyId id) const {
  return impl_->motions[impl_->check_body(id, "body_motion")];
}
double World::body_mass(BodyId id) const { return impl_->masses[impl_->check_body(id, "body_mass")]; }

BodyState World::body_state(BodyId id) const {
  const RigidBodySim& b = impl_->bodies[impl_->check_body(id, "body_state")];
  Pose frame = b.frame_pose();
  return BodyState{frame.position, frame.orientation, b.v, b.w};
}

void World::set_body_state(BodyId id, const BodyState& state) {
  RigidBodySim& b = impl_->bodies[impl_->check_body(id, "set_body_state")];
  if (!b.moving) throw_world_misuse("set_body_state", "body '" + impl_->names[id.index] + "' is static");
  const double q_norm = state.orientation.norm();
  if (!state.position.allFinite() || !state.orientation.coeffs().allFinite() ||
      !state.linear_velocity.allFinite() || !state.angular_velocity.allFinite() || !(q_norm > 0))
    throw_world_misuse("set_body_state", "non-finite state or zero orientation quaternion");
  b.q = state.orientation.normalized();
  b.x = state.position + b.q * b.com_local;
  b.v = state.linear_velocity;
  b.w = state.angular_velocity;
  b.refresh_world_inertia();
  impl_->wake_island(static_cast<int>(id.index));
  if (id.index < impl_->sleep_time.size()) impl_->sleep_time[id.index] = 0;
  // The teleport replaces a pending target; queries find the body where it is now (the next
  // step sets its box anew, since it is awake).
  const int i = static_cast<int>(id.index);
  impl_->cancel_target(i);
  impl_->broadphase.update(i, compute_aabb(impl_->shapes[i], b.frame_pose()));
}

WorldStatus World::status() const { return impl_->status; }
const std::string& World::divergence_message() const { return impl_->divergence_message; }
long long World::step_count() const { return impl_->step_count; }
double World::time() const { return impl_->time; }
const WorldDef& World::def() const { return impl_->def; }
const WorldStats& World::stats() const { return impl_->stats; }
int World::contact_count() const { return impl_->stats.contacts_last; }
double World::current_max_penetration() const { return impl_->last_max_penetration; }
double World::current_joint_error() const { return impl_->last_joint_error; }

double World::total_energy() const {
  const Impl& w = *impl_;
  double energy = 0;
  for (size_t i = 0; i < w.bodies.size(); ++i) {
    const RigidBodySim& b = w.bodies[i];
    if (!b.dynamic) continue;
    double m = w.masses[i];
    Vec3 w_body = b.q.conjugate() * b.w;
    energy += 0.5 * m * b.v.squaredNorm() + 0.5 * w_body.dot(b.inertia_local * w_body) -
              m * w.def.gravity.dot(b.x);
  }
  for (const Impl::Cloth& c : w.cloths) energy += c.sim.kinetic_energy() + c.sim.gravitational_energy(w.def.gravity);
  return energy;
}

void World::step() {
  Impl& w = *impl_;
  if (w.status != WorldStatus::Ok) return;
  // The load average, for the parallel loops' thread counts: once per step (a system call).
  if (w.def.threads != 1) refresh_idle_cores();
  if (w.step_count == 0) w.separate_spawn_overlaps();
  const int substeps = w.substeps_per_step();
  const double h = w.def.dt / substeps;
  w.last_max_penetration = 0;
  int contacts = 0;
  for (int s = 0; s < substeps; ++s) {
    w.last_substep = s + 1 == substeps;
    w.substep(h);
    contacts = std::max(contacts, static_cast<int>(w.contacts.size()));
  }
  w.finish_driving();
  {
    const std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
    w.refresh_query_boxes();
    w.time_phase(StepPhase::Broadphase, t);
  }
  if (w.def.contact_events) w.update_contact_events();
  w.update_sleep();
  w.step_count += 1;
  w.time = static_cast<double>(w.step_count) * w.def.dt;
  w.stats.steps = w.step_count;
  w.stats.contacts_last = contacts;
  w.stats.contacts_max = std::max(w.stats.contacts_max, contacts);
  w.stats.max_penetration = std::max(w.stats.max_penetration, w.last_max_penetration);
  w.measure_joint_errors();
  w.check_divergence();
}

const char* step_phase_name(StepPhase phase) {
  switch (phase) {
    case StepPhase::Forces: return "forces";
    case StepPhase::Broadphase: return "broadphase";
    case StepPhase::Narrowphase: return "narrowphase";
    case StepPhase::Solver: return "solver";
    case StepPhase::Ccd: return "ccd";
    case StepPhase::Integrate: return "integrate";
    case StepPhase::Cloth: return "cloth";
    case StepPhase::Sleep: return "sleep";
    case StepPhase::Count: break;
  }
  return "?";
}

const char* cloth_phase_name(ClothPhase phase) {
  switch (phase) {
    case ClothPhase::InternalForces: return "internal_forces";
    case ClothPhase::Solve: return "solve";
    case ClothPhase::StrainLimit: return "strain_limit";
    case ClothPhase::Rigid: return "rigid";
    case ClothPhase::Culling: return "culling";
    case ClothPhase::Ccd: return "ccd";
    case ClothPhase::Response: return "response";
    case ClothPhase::IntersectionCount: return "intersection_count";
    case ClothPhase::Count: break;
  }
  return "?";
}

std::chrono::steady_clock::time_point World::Impl::time_phase(StepPhase phase,
                                                             std::chrono::steady_clock::time_point start) {
  const std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
  stats.phase_seconds[static_cast<int>(phase)] += std::chrono::duration<double>(now - start).count();
  return now;
}

void World::Impl::substep(double h) {
  std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
  apply_forces(h);
  t = time_phase(StepPhase::Forces, t);
  update_broadphase(h);
  t = time_phase(StepPhase::Broadphase, t);
  run_narrowphase(h);
  if (last_substep && def.contact_events) snapshot_event_state();
  t = time_phase(StepPhase::Narrowphase, t);
  build_contacts();
  solve_contacts(h);
  if (def.contact_events) record_pushed_pairs();
  t = time_phase(StepPhase::Solver, t);
  run_ccd(h);
  t = time_phase(StepPhase::Ccd, t);
  integrate_positions(h);
  t = time_phase(StepPhase::Integrate, t);
  stabilize_positions();
  store_warm_start();
  t = time_phase(StepPhase::Solver, t);
  if (!cloths.empty()) {
    step_cloths(h);
    time_phase(StepPhase::Cloth, t);
  }
  // A sleeping body whose velocity something changed (cloth reactions, ...) wakes its island.
  if (bodies_asleep > 0) wake_disturbed_bodies();
}

int World::Impl::substeps_per_step() const {
  // Steps longer than kMaxSolverStep are cut into sub-steps of the whole step pipeline. A
  // 200-box pile at 30 Hz in one step rested 22 mm deep in itself and kept moving (issue 16);
  // sub-steps that only re-ran the solver over the step's contacts did worse (90 mm): a box's
  // clipped manifold and normals from the start of a 1/30 s step do not describe its end.
  if (!def.auto_substeps) return def.substeps;
  const double h = def.dt / def.substeps;
  int split = std::max(1, static_cast<int>(std::ceil(h / kMaxSolverStep * (1 - 1e-9))));
  // Fast spinners: the solver's contact rows are linear in the rotation, and a non-round body
  // turning 0.83 rad per step (200 rad/s at 240 Hz) ends the step with the material point that
  // became its lowest below the plane (an ellipsoid sank 3.7 mm). Spheres are exempt: their
  // surface does not move when they spin.
  double spin = 0;
  for (size_t i = 0; i < bodies.size(); ++i) {
    const RigidBodySim& b = bodies[i];
    if (b.dynamic && !b.asleep && shapes[i].type != ShapeType::Sphere) spin = std::max(spin, b.w.norm());
  }
  const double turn = spin * h / split;
  if (turn > kMaxStepRotation) split = static_cast<int>(std::ceil(split * turn / kMaxStepRotation));
  return def.substeps * split;
}

// The per-body loops below are parallel (each body writes only itself): the gyroscopic Newton
// solve makes integrate_velocity about 0.1 µs a body, and at 2 threads these loops were a
// serial 3% of pile_spheres_1k's step.
void World::Impl::apply_forces(double h) {
  parallel_for(static_cast<std::ptrdiff_t>(bodies.size()), def.threads, [&](std::ptrdiff_t i) {
    RigidBodySim& b = bodies[i];
    if (!b.asleep) integrate_velocity(b, def.gravity, h);
  }, 0, kMinParallelCheap);
  if (has_forces) apply_external_forces(h);  // World::apply_force, apply_torque
}

void World::Impl::integrate_positions(double h) {
  // CCD may have limited some bodies to their time of impact (step_times; empty = none).
  // Sleeping bodies are skipped: even a zero rotation would renormalise q and change its bits.
  parallel_for(static_cast<std::ptrdiff_t>(bodies.size()), def.threads, [&](std::ptrdiff_t i) {
    if (!bodies[i].asleep) integrate_position(bodies[i], step_times.empty() ? h : step_times[i]);
  }, 0, kMinParallelCheap);
}

void World::Impl::check_divergence() {
  // An exploding state is one no physical scene reaches: 10 km/s, 10⁵ rad/s, 10⁶ m away.
  constexpr double kMaxSpeed = 1e4, kMaxSpin = 1e5, kMaxDistance = 1e6;
  for (size_t i = 0; i < bodies.size(); ++i) {
    const RigidBodySim& b = bodies[i];
    if (!b.moving) continue;
    const char* what = nullptr;
    if (!b.x.allFinite() || !b.q.coeffs().allFinite() || !b.v.allFinite() || !b.w.allFinite())
      what = "a non-finite (NaN/Inf) state";
    else if (b.v.norm() > kMaxSpeed) what = "a speed above 1e4 m/s";
    else if (b.w.norm() > kMaxSpin) what = "an angular speed above 1e5 rad/s";
    else if (b.x.norm() > kMaxDistance) what = "a position more than 1e6 m from the origin";
    if (what) {
      status = WorldStatus::Diverged;
      std::ostringstream message;
      message << "body '" << names[i] << "' diverged at step " << step_count << " (t = " << time
              << " s): " << what;
      divergence_message = message.str();
      return;
    }
  }
  for (const Cloth& c : cloths) {
    const std::vector<Vec3>& x = c.sim.positions();
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].allFinite() && x[i].norm() <= kMaxDistance) continue;
      status = WorldStatus::Diverged;
      std::ostringstream message;
      message << "cloth '" << c.name << "' diverged at step " << step_count << " (t = " << time
              << " s): vertex " << i << (x[i].allFinite() ? " is more than 1e6 m away" : " is NaN/Inf");
      divergence_message = message.str();
      return;
    }
  }
}

}  // namespace impetus
