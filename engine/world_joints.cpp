// The World's joint API: joints between two bodies, or a body and the world. Joints are kept
// in creation order without gaps (the solvers loop over them); their ids find them through
// DenseIds (engine/dense_ids.h).
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/world_impl.h"
#include "engine/world_validate.h"

namespace impetus {

JointId World::create_joint(const JointDef& def) {
  Impl& w = *impl_;
  auto fail = [](const std::string& problem) { throw_world_misuse("create_joint", problem); };
  const bool to_world = def.body_b == BodyId{};
  if (!is_valid(def.body_a) || (!to_world && !is_valid(def.body_b)) || def.body_a == def.body_b)
    fail("bodies must be two different existing bodies (or the world)");
  if (!def.anchor.allFinite() || !def.axis.allFinite()) fail("anchor and axis must be finite");
  const bool needs_axis = def.type == JointType::Hinge || def.type == JointType::Slider;
  if (needs_axis && !(def.axis.norm() >= 1e-12)) fail("axis must be non-zero");
  if (def.limits && !(std::isfinite((*def.limits)[0]) && std::isfinite((*def.limits)[1]) &&
                      (*def.limits)[0] <= (*def.limits)[1]))
    fail("limits must be finite with lo <= hi");
  const int body_a = static_cast<int>(def.body_a.index);
  const int body_b = to_world ? -1 : static_cast<int>(def.body_b.index);
  const RigidBodySim& a = w.bodies[body_a];
  const bool b_dynamic = body_b >= 0 && w.bodies[body_b].dynamic;
  if (!a.dynamic && !b_dynamic) fail("at least one of its bodies must be dynamic");
  JointSim j;
  switch (def.type) {
    case JointType::Ball: j.kind = JointKind::Ball; break;
    case JointType::Hinge: j.kind = JointKind::Hinge; break;
    case JointType::Fixed: j.kind = JointKind::Fixed; break;
    case JointType::Slider: j.kind = JointKind::Slider; break;
  }
  j.body_a = body_a;
  j.body_b = body_b;
  const Vec3 axis = needs_axis ? Vec3(def.axis.normalized()) : Vec3::UnitX();
  j.anchor_a = a.q.conjugate() * (def.anchor - a.x);
  j.axis_a = a.q.conjugate() * axis;
  if (body_b >= 0) {
    const RigidBodySim& b = w.bodies[body_b];
    j.anchor_b = b.q.conjugate() * (def.anchor - b.x);
    j.axis_b = b.q.conjugate() * axis;
    j.rest_relative = b.q.conjugate() * a.q;
  } else {
    j.anchor_b = def.anchor;
    j.axis_b = axis;
    j.rest_relative = a.q;
  }
  if (needs_axis) j.limits = def.limits;
  w.joints.push_back(j);
  const auto [slot, generation] = w.joint_ids.add();
  // A new joint changes islands: whatever it links to must be awake.
  w.wake_island(body_a);
  if (body_b >= 0) w.wake_island(body_b);
  if (body_b >= 0) {
    std::pair<int, int> pair(std::min(body_a, body_b), std::max(body_a, body_b));
    auto at = std::lower_bound(w.jointed_pairs.begin(), w.jointed_pairs.end(), pair);
    if (at == w.jointed_pairs.end() || *at != pair) w.jointed_pairs.insert(at, pair);
  }
  return JointId{slot, generation};
}

void World::destroy_joint(JointId id) {
  Impl& w = *impl_;
  w.remove_joint(w.check_joint(id, "destroy_joint"));
  w.rebuild_jointed_pairs();
}

int World::joint_count() const { return static_cast<int>(impl_->joints.size()); }

bool World::is_valid(JointId id) const { return impl_->joint_ids.find(id.index, id.generation) >= 0; }

int World::Impl::check_joint(JointId id, const char* function) const {
  const int position = joint_ids.find(id.index, id.generation);
  if (position < 0) {
    throw_world_misuse(function, "invalid joint id {index " + std::to_string(id.index) +
                                     ", generation " + std::to_string(id.generation) +
                                     "} (the world has " + std::to_string(joints.size()) +
                                     " joints)");
  }
  return position;
}

void World::Impl::remove_joint(int position) {
  // Its bodies' islands change: wake them (a sleeping pendulum cut loose must fall).
  const JointSim& j = joints[position];
  wake_island(j.body_a);
  if (j.body_b >= 0) wake_island(j.body_b);
  joints.erase(joints.begin() + position);
  joint_ids.remove(position);
}

void World::Impl::rebuild_jointed_pairs() {
  // Another joint may still link the same two bodies: recount from the joints that remain.
  jointed_pairs.clear();
  for (const JointSim& j : joints) {
    if (j.body_b >= 0) jointed_pairs.emplace_back(std::min(j.body_a, j.body_b), std::max(j.body_a, j.body_b));
  }
  std::sort(jointed_pairs.begin(), jointed_pairs.end());
  jointed_pairs.erase(std::unique(jointed_pairs.begin(), jointed_pairs.end()), jointed_pairs.end());
}

}  // namespace impetus
