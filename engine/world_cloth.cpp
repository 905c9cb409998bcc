// The cloth phase of the step and the World's cloth API: each cloth is stepped after the rigid
// bodies have moved, against the bodies near it, and its reaction impulses are applied to those
// bodies (two-way coupling).
#include <stdexcept>

#include "cloth/cloth_mesh.h"
#include "engine/cloth_from_def.h"
#include "engine/world_impl.h"
#include "engine/world_validate.h"

namespace impetus {

int World::create_cloth(const ClothDef& def) {
  Impl& w = *impl_;
  // Everything is checked before anything is built: a rejected def leaves the world unchanged.
  validate_cloth_def(def);
  for (const ClothAttachDef& a : def.attach) {
    if (a.body < 0 || a.body >= static_cast<int>(w.bodies.size()))
      throw_world_misuse("create_cloth", "cloth '" + def.name + "': attachment body " +
                                             std::to_string(a.body) + " out of range");
  }
  ClothMesh mesh;
  if (def.is_grid) {
    mesh = make_grid_cloth(def.grid_size, def.grid_resolution, def.grid_center, def.grid_orientation);
  } else {
    mesh.vertices = def.mesh_vertices;
    mesh.triangles = def.mesh_triangles;
  }
  const ClothParams params = cloth_params_from_def(def, w.def.threads);
  ClothSim sim(mesh, params);
  for (const ClothAttachDef& a : def.attach) {
    sim.attach(a.vertex, a.body, w.bodies[a.body].frame_pose());
  }
  w.cloths.push_back(Impl::Cloth{def.name, std::move(sim)});
  return static_cast<int>(w.cloths.size()) - 1;
}

const World::Impl::Cloth& World::Impl::check_cloth(int cloth, const char* function) const {
  if (cloth < 0 || cloth >= static_cast<int>(cloths.size())) {
    throw_world_misuse(function, "cloth index " + std::to_string(cloth) +
                                     " out of range (the world has " +
                                     std::to_string(cloths.size()) + " cloths)");
  }
  return cloths[cloth];
}

int World::cloth_count() const { return static_cast<int>(impl_->cloths.size()); }
const std::string& World::cloth_name(int cloth) const {
  return impl_->check_cloth(cloth, "cloth_name").name;
}
const std::vector<Vec3>& World::cloth_positions(int cloth) const {
  return impl_->check_cloth(cloth, "cloth_positions").sim.positions();
}
const std::vector<std::array<int, 3>>& World::cloth_triangles(int cloth) const {
  return impl_->check_cloth(cloth, "cloth_triangles").sim.triangles();
}
int World::cloth_self_intersections(int cloth) const {
  return impl_->check_cloth(cloth, "cloth_self_intersections").sim.stats().self_intersections;
}
double World::cloth_max_strain(int cloth) const { return impl_->cloths.at(cloth).sim.max_edge_strain(); }
double World::cloth_max_compression(int cloth) const {
  return impl_->cloths.at(cloth).sim.max_edge_compression();
}
double World::cloth_max_strain_seen(int cloth) const {
  return impl_->cloths.at(cloth).sim.max_edge_strain_seen();
}

void World::Impl::step_cloths(double h) {
  for (Cloth& cloth : cloths) {
    // Bodies the cloth can reach this step: its box grown by its motion and thickness.
    const std::vector<Vec3>& x = cloth.sim.positions();
    const std::vector<Vec3>& v = cloth.sim.velocities();
    Aabb reach;
    for (size_t i = 0; i < x.size(); ++i) {
      reach.grow(x[i]);
      reach.grow(x[i] + h * v[i] + (h * h) * def.gravity);
    }
    reach = reach.inflated(cloth.sim.params().thickness + kContactMargin);
    cloth_colliders.clear();
    for (size_t b = 0; b < bodies.size(); ++b) {
      const RigidBodySim& body = bodies[b];
      Pose pose = body.frame_pose();
      if (!compute_aabb(shapes[b], pose).overlaps(reach)) continue;
      RigidCollider c;
      c.body = static_cast<int>(b);
      c.shape = shapes[b];
      c.pose = pose;
      c.linear_velocity = body.v;
      c.angular_velocity = body.w;
      c.center_of_mass = body.x;
      c.friction = def.materials[materials[b]].friction;
      if (body.dynamic) {
        c.inv_mass = body.inv_mass;
        c.inv_inertia_world = body.inv_inertia_world;
      }
      cloth_colliders.push_back(c);
    }
    cloth_reactions.clear();
    cloth.sim.step(h, def.gravity, cloth_colliders, cloth_reactions);
    // Newton's third law on the rigid side, in a fixed order.
    for (const RigidImpulse& r : cloth_reactions) {
      RigidBodySim& body = bodies[r.body];
      if (!body.dynamic) continue;
      body.v += body.inv_mass * r.impulse;
      body.w += body.inv_inertia_world * (r.point - body.x).cross(r.impulse);
    }
    const ClothStats& cs = cloth.sim.stats();
    stats.cloth_phase_seconds[static_cast<int>(ClothPhase::InternalForces)] += cs.seconds_internal_forces;
    stats.cloth_phase_seconds[static_cast<int>(ClothPhase::Solve)] += cs.seconds_solve;
    stats.cloth_phase_seconds[static_cast<int>(ClothPhase::StrainLimit)] += cs.seconds_strain_limit;
    stats.cloth_phase_seconds[static_cast<int>(ClothPhase::Rigid)] += cs.seconds_rigid;
    stats.cloth_phase_seconds[static_cast<int>(ClothPhase::Culling)] += cs.seconds_culling;
    stats.cloth_phase_seconds[static_cast<int>(ClothPhase::Ccd)] += cs.seconds_ccd;
    stats.cloth_phase_seconds[static_cast<int>(ClothPhase::Response)] += cs.seconds_response;
    stats.cloth_phase_seconds[static_cast<int>(ClothPhase::IntersectionCount)] += cs.seconds_intersection_count;
    stats.cloth_self_intersections_max = std::max(stats.cloth_self_intersections_max, cs.self_intersections);
  }
}

}  // namespace impetus
