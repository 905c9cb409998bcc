// The cloth phase of the step and the World's cloth API: each cloth is stepped after the rigid
// bodies have moved, against the bodies near it (sensors excepted), and its reaction impulses
// are applied to those bodies (two-way coupling). Cloths are kept in creation order without
// gaps; ClothIds find them through DenseIds (engine/dense_ids.h).
#include <stdexcept>

#include "cloth/cloth_mesh.h"
#include "engine/cloth_from_def.h"
#include "engine/world_impl.h"
#include "engine/world_validate.h"

namespace impetus {

ClothId World::create_cloth(const ClothDef& def) {
  Impl& w = *impl_;
  // Everything is checked before anything is built: a rejected def leaves the world unchanged.
  validate_cloth_def(def);
  for (const ClothAttachDef& a : def.attach) {
    if (!is_valid(a.body))
      throw_world_misuse("create_cloth", "cloth '" + def.name + "': attachment body {index " +
                                             std::to_string(a.body.index) + ", generation " +
                                             std::to_string(a.body.generation) +
                                             "} is not a live body");
    // Cloth ignores sensors (no contact response), so it could not follow one either.
    if (w.sensors[a.body.index])
      throw_world_misuse("create_cloth", "cloth '" + def.name + "': attachment body '" +
                                             w.names[a.body.index] + "' is a sensor");
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
    const int body = static_cast<int>(a.body.index);
    sim.attach(a.vertex, body, w.bodies[body].frame_pose());
  }
  w.cloths.push_back(Impl::Cloth{def.name, std::move(sim)});
  const auto [slot, generation] = w.cloth_ids.add();
  return ClothId{slot, generation};
}

void World::destroy_cloth(ClothId id) {
  Impl& w = *impl_;
  const int position = w.cloth_ids.find(id.index, id.generation);
  if (position < 0) w.check_cloth(id, "destroy_cloth");  // throws
  // The bodies it was attached to, or lay on, lose its reactions: let them move again.
  for (const ClothAttachment& a : w.cloths[position].sim.params().attached) w.wake_island(a.body);
  w.cloths.erase(w.cloths.begin() + position);
  w.cloth_ids.remove(position);
}

bool World::is_valid(ClothId id) const { return impl_->cloth_ids.find(id.index, id.generation) >= 0; }

const World::Impl::Cloth& World::Impl::check_cloth(int cloth, const char* function) const {
  if (cloth < 0 || cloth >= static_cast<int>(cloths.size())) {
    throw_world_misuse(function, "cloth index " + std::to_string(cloth) +
                                     " out of range (the world has " +
                                     std::to_string(cloths.size()) + " cloths)");
  }
  return cloths[cloth];
}

const World::Impl::Cloth& World::Impl::check_cloth(ClothId id, const char* function) const {
  const int position = cloth_ids.find(id.index, id.generation);
  if (position < 0) {
    throw_world_misuse(function, "invalid cloth id {index " + std::to_string(id.index) +
                                     ", generation " + std::to_string(id.generation) +
                                     "} (the world has " + std::to_string(cloths.size()) +
                                     " cloths)");
  }
  return cloths[position];
}

int World::cloth_count() const { return static_cast<int>(impl_->cloths.size()); }
ClothId World::cloth_id(int index) const {
  impl_->check_cloth(index, "cloth_id");
  const auto [slot, generation] = impl_->cloth_ids.id_at(index);
  return ClothId{slot, generation};
}

// By index and by id: the same, after the check that names the function.
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
double World::cloth_max_strain(int cloth) const {
  return impl_->check_cloth(cloth, "cloth_max_strain").sim.max_edge_strain();
}
double World::cloth_max_compression(int cloth) const {
  return impl_->check_cloth(cloth, "cloth_max_compression").sim.max_edge_compression();
}
double World::cloth_max_strain_seen(int cloth) const {
  return impl_->check_cloth(cloth, "cloth_max_strain_seen").sim.max_edge_strain_seen();
}
const std::string& World::cloth_name(ClothId id) const {
  return impl_->check_cloth(id, "cloth_name").name;
}
const std::vector<Vec3>& World::cloth_positions(ClothId id) const {
  return impl_->check_cloth(id, "cloth_positions").sim.positions();
}
const std::vector<std::array<int, 3>>& World::cloth_triangles(ClothId id) const {
  return impl_->check_cloth(id, "cloth_triangles").sim.triangles();
}
int World::cloth_self_intersections(ClothId id) const {
  return impl_->check_cloth(id, "cloth_self_intersections").sim.stats().self_intersections;
}
double World::cloth_max_strain(ClothId id) const {
  return impl_->check_cloth(id, "cloth_max_strain").sim.max_edge_strain();
}
double World::cloth_max_compression(ClothId id) const {
  return impl_->check_cloth(id, "cloth_max_compression").sim.max_edge_compression();
}
double World::cloth_max_strain_seen(ClothId id) const {
  return impl_->check_cloth(id, "cloth_max_strain_seen").sim.max_edge_strain_seen();
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
      // Free slots are no bodies; sensors have no contact response, with cloth neither.
      if (!live[b] || sensors[b]) continue;
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
