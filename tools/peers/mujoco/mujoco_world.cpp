#include "tools/peers/mujoco/mujoco_world.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <unistd.h>

namespace impetus::peers {
namespace {

// MuJoCo prints warnings on stdout by default, which would corrupt the JSON document there.
void warning_to_stderr(const char* message) {
  std::fprintf(stderr, "mujoco warning: %s\n", message);
}

// MuJoCo's errors are fatal (its default handler exits); say so on stderr, not stdout.
void error_to_stderr(const char* message) {
  std::fprintf(stderr, "mujoco error: %s\n", message);
  std::exit(3);
}

}  // namespace

MujocoWorld::MujocoWorld(const SceneDef& scene)
    : scene_(&scene), substeps_(std::max(1, scene.world.substeps)), mjcf_(build_mjcf(scene)) {
  mju_user_warning = &warning_to_stderr;
  mju_user_error = &error_to_stderr;
  // Appended piecewise: GCC 12 gives a false -Wrestrict on a chain of string + literal.
  std::string file_name = "impetus_peer_mujoco_";
  file_name += std::to_string(getpid());
  file_name += '_';
  file_name += scene.name;
  file_name += ".xml";
  std::filesystem::path path = std::filesystem::temp_directory_path() / file_name;
  {
    std::ofstream out(path);
    out << mjcf_.xml;
    if (!out) throw std::runtime_error("cannot write " + path.string());
  }
  char error[1000] = "";
  model_ = mj_loadXML(path.string().c_str(), nullptr, error, sizeof error);
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  if (model_ == nullptr) throw std::runtime_error(std::string("mj_loadXML: ") + error);
  data_ = mj_makeData(model_);
  if (data_ == nullptr) {
    mj_deleteModel(model_);
    throw std::runtime_error("mj_makeData failed (out of memory?)");
  }
  body_ids_.assign(scene.bodies.size(), -1);
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    if (!mjcf_.body_names[i].empty()) {
      body_ids_[i] = mj_name2id(model_, mjOBJ_BODY, mjcf_.body_names[i].c_str());
    }
  }
  // Initial velocities: set the free joints' qvel from the scene (others start at rest,
  // as every articulated scene does).
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    int b = body_ids_[i];
    if (b < 0 || model_->body_jntnum[b] != 1) continue;
    int j = model_->body_jntadr[b];
    if (model_->jnt_type[j] != mjJNT_FREE) continue;
    int v = model_->jnt_dofadr[j];
    const BodyDef& def = scene.bodies[i];
    // Free joint qvel: linear velocity of the body origin (world), angular velocity (local).
    Vec3 w_local = def.orientation.conjugate() * def.angular_velocity;
    Vec3 com = def.orientation * Vec3(model_->body_ipos[3 * b], model_->body_ipos[3 * b + 1],
                                      model_->body_ipos[3 * b + 2]);
    Vec3 v_origin = def.linear_velocity - def.angular_velocity.cross(com);
    for (int k = 0; k < 3; ++k) {
      data_->qvel[v + k] = v_origin[k];
      data_->qvel[v + 3 + k] = w_local[k];
    }
  }
  mj_forward(model_, data_);
}

MujocoWorld::~MujocoWorld() {
  mj_deleteData(data_);
  mj_deleteModel(model_);
}

void MujocoWorld::step() {
  for (int s = 0; s < substeps_; ++s) mj_step(model_, data_);
}

void MujocoWorld::update_kinematics() {
  mj_kinematics(model_, data_);
  mj_comPos(model_, data_);
  mj_comVel(model_, data_);
}

void MujocoWorld::read_states(std::vector<ProbeBodyState>& states) const {
  states.resize(scene_->bodies.size());
  for (std::size_t i = 0; i < scene_->bodies.size(); ++i) {
    int b = body_ids_[i];
    if (b < 0) {
      states[i].pose = Pose{scene_->bodies[i].position, scene_->bodies[i].orientation};
      states[i].linear_velocity = Vec3::Zero();
      continue;
    }
    const mjtNum* p = data_->xpos + 3 * b;
    const mjtNum* q = data_->xquat + 4 * b;
    states[i].pose = Pose{Vec3(p[0], p[1], p[2]), Quat(q[0], q[1], q[2], q[3])};
    mjtNum velocity[6];  // [angular, linear] at the centre of mass, world frame
    mj_objectVelocity(model_, data_, mjOBJ_BODY, b, velocity, 0);
    states[i].linear_velocity = Vec3(velocity[3], velocity[4], velocity[5]);
  }
}

double MujocoWorld::max_penetration() const {
  double deepest = 0;
  for (int c = 0; c < data_->ncon; ++c) deepest = std::max(deepest, -data_->contact[c].dist);
  return deepest;
}

int MujocoWorld::buffer_overflows() const {
  return data_->warning[mjWARN_CONTACTFULL].number + data_->warning[mjWARN_CNSTRFULL].number;
}

}  // namespace impetus::peers
