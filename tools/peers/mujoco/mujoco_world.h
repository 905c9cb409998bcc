#pragma once
// A SceneDef loaded into MuJoCo (through mjcf_writer.h) and stepped with mj_step at the scene's
// dt (MuJoCo's default Euler integrator, Newton solver, pyramidal friction cones).
#include <string>
#include <vector>

#include <mujoco/mujoco.h>

#include "engine/world_def.h"
#include "tools/peers/bullet/scene_probe.h"
#include "tools/peers/mujoco/mjcf_writer.h"

namespace impetus::peers {

class MujocoWorld {
 public:
  /// Throws std::runtime_error when the scene cannot be modelled or MuJoCo rejects the model
  /// (the message carries MuJoCo's).
  explicit MujocoWorld(const SceneDef& scene);
  ~MujocoWorld();
  MujocoWorld(const MujocoWorld&) = delete;
  MujocoWorld& operator=(const MujocoWorld&) = delete;

  /// One scene step (`substeps` mj_step calls).
  void step();
  /// Recomputes positions and velocities for the state after the last step (mj_step leaves
  /// the kinematics of the state before its integration); not part of the timed step.
  void update_kinematics();
  /// Every body's state in scene order (after update_kinematics); static bodies at their pose.
  void read_states(std::vector<ProbeBodyState>& states) const;
  /// Deepest contact penetration among the last step's contacts [m].
  double max_penetration() const;
  int contact_count() const { return data_->ncon; }
  /// Times MuJoCo reported a full contact or constraint buffer (contacts were dropped).
  int buffer_overflows() const;
  const MjcfModel& mjcf() const { return mjcf_; }
  const mjModel& model() const { return *model_; }
  /// For option overrides after loading (solver, iterations).
  mjModel& mutable_model() { return *model_; }
  mjData& data() { return *data_; }
  /// MuJoCo body id of a scene body (-1 for worldbody geoms).
  int body_id(int scene_index) const { return body_ids_[scene_index]; }

 private:
  const SceneDef* scene_;
  int substeps_ = 1;
  MjcfModel mjcf_;
  mjModel* model_ = nullptr;
  mjData* data_ = nullptr;
  std::vector<int> body_ids_;
};

}  // namespace impetus::peers
