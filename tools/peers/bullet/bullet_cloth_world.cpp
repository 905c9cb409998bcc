#include "tools/peers/bullet/bullet_cloth_world.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "tools/peers/bullet/bullet_rigid_world.h"
#include "tools/peers/bullet/scene_probe.h"

namespace impetus::peers {
namespace {

constexpr double kGroundHalfSize = 50;       // m, half the side of a plane's stand-in box
constexpr double kGroundHalfThickness = 5;   // m

// Lumped vertex masses: each triangle gives a third of its mass to each corner.
std::vector<double> lumped_masses(const std::vector<Vec3>& x,
                                  const std::vector<std::array<int, 3>>& triangles,
                                  double areal_density) {
  std::vector<double> m(x.size(), 0.0);
  for (const std::array<int, 3>& t : triangles) {
    double area = 0.5 * (x[t[1]] - x[t[0]]).cross(x[t[2]] - x[t[0]]).norm();
    for (int k : t) m[k] += areal_density * area / 3.0;
  }
  return m;
}

}  // namespace

BulletClothWorld::BulletClothWorld(const SceneDef& scene, const BulletClothSettings& settings)
    : dt_(scene.world.dt), substeps_(std::max(1, scene.world.substeps)) {
  install_bullet_material_rules();
  configuration_ = std::make_unique<btSoftBodyRigidBodyCollisionConfiguration>();
  dispatcher_ = std::make_unique<btCollisionDispatcher>(configuration_.get());
  broadphase_ = std::make_unique<btDbvtBroadphase>();
  solver_ = std::make_unique<btSequentialImpulseConstraintSolver>();
  world_ = std::make_unique<btSoftRigidDynamicsWorld>(dispatcher_.get(), broadphase_.get(),
                                                      solver_.get(), configuration_.get());
  world_->setGravity(to_bullet(scene.world.gravity));
  btSoftBodyWorldInfo& info = world_->getWorldInfo();
  info.m_gravity = to_bullet(scene.world.gravity);
  info.m_dispatcher = dispatcher_.get();
  info.m_broadphase = broadphase_.get();
  info.m_sparsesdf.Initialize();

  for (const BodyDef& def : scene.bodies) {
    std::unique_ptr<btCollisionShape> shape;
    Pose pose{def.position, def.orientation};
    if (def.shape.type == ShapeType::Plane) {
      // The box's top face is the plane n·x = offset.
      shape = std::make_unique<btBoxShape>(
          btVector3(kGroundHalfSize, kGroundHalfSize, kGroundHalfThickness));
      Vec3 n = def.shape.normal.normalized();
      pose.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), n);
      pose.position = (def.shape.offset - kGroundHalfThickness) * n;
    } else {
      shape = make_bullet_shape(def.shape);
    }
    auto body = make_bullet_body(scene, def, shape.get(), pose);
    world_->addRigidBody(body.get());
    shapes_.push_back(std::move(shape));
    bodies_.push_back(std::move(body));
  }

  for (const SceneClothDef& def : scene.cloths) {
    std::vector<Vec3> x0;
    std::vector<std::array<int, 3>> triangles;
    cloth_initial_mesh(def, x0, triangles);
    std::vector<double> mass = lumped_masses(x0, triangles, def.areal_density);
    for (int p : def.pin) mass[p] = 0;  // Bullet: zero mass = fixed node
    std::vector<btVector3> xb(x0.size());
    std::vector<btScalar> mb(x0.size());
    for (std::size_t i = 0; i < x0.size(); ++i) {
      xb[i] = to_bullet(x0[i]);
      mb[i] = mass[i];
    }
    auto cloth = std::make_unique<btSoftBody>(&info, static_cast<int>(x0.size()), xb.data(),
                                              mb.data());
    std::set<std::array<int, 2>> edges;
    for (const std::array<int, 3>& t : triangles) {
      for (int k = 0; k < 3; ++k) {
        edges.insert({std::min(t[k], t[(k + 1) % 3]), std::max(t[k], t[(k + 1) % 3])});
      }
    }
    for (const std::array<int, 2>& e : edges) cloth->appendLink(e[0], e[1]);
    for (const std::array<int, 3>& t : triangles) cloth->appendFace(t[0], t[1], t[2]);
    btSoftBody::Material* bend = cloth->appendMaterial();
    bend->m_kLST = settings.bend_stiffness;
    cloth->generateBendingConstraints(2, bend);
    cloth->m_cfg.kDF = def.friction;
    cloth->m_cfg.kDP = def.damping;
    if (settings.position_iterations > 0) cloth->m_cfg.piterations = settings.position_iterations;
    if (def.self_collision && settings.self_collision) {
      cloth->m_cfg.collisions = btSoftBody::fCollision::SDF_RS | btSoftBody::fCollision::CL_SS |
                                btSoftBody::fCollision::CL_SELF;
      if (settings.vertex_face) cloth->m_cfg.collisions |= btSoftBody::fCollision::VF_SS;
      cloth->generateClusters(settings.clusters);
    } else {
      cloth->m_cfg.collisions = btSoftBody::fCollision::SDF_RS;
    }
    cloth->getCollisionShape()->setMargin(settings.margin > 0 ? settings.margin : def.thickness);
    world_->addSoftBody(cloth.get());
    cloths_.push_back(std::move(cloth));
  }
}

BulletClothWorld::~BulletClothWorld() {
  for (auto& c : cloths_) world_->removeSoftBody(c.get());
  for (auto& b : bodies_) world_->removeRigidBody(b.get());
}

void BulletClothWorld::step() {
  const double h = dt_ / substeps_;
  for (int s = 0; s < substeps_; ++s) world_->stepSimulation(h, 0, h);
}

void BulletClothWorld::read_cloth(int index, std::vector<Vec3>& x) const {
  const btSoftBody& cloth = *cloths_[index];
  x.resize(cloth.m_nodes.size());
  for (int i = 0; i < cloth.m_nodes.size(); ++i) x[i] = from_bullet(cloth.m_nodes[i].m_x);
}

int BulletClothWorld::node_count(int index) const { return cloths_[index]->m_nodes.size(); }
int BulletClothWorld::link_count(int index) const { return cloths_[index]->m_links.size(); }
int BulletClothWorld::cluster_count(int index) const {
  return cloths_[index]->clusterCount();
}

}  // namespace impetus::peers
