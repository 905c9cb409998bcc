#pragma once
// A cloth scene rebuilt in Bullet's btSoftRigidDynamicsWorld. Each cloth becomes one btSoftBody
// built node for node from impetus's own grid (same numbering, same triangles, so that pins
// and the self-intersection count refer to the same vertices):
//   nodes: lumped masses (areal density × area / 3 per triangle corner), pinned nodes mass 0;
//   links: every triangle edge (stretch and shear), Bullet's default material (kLST = 1);
//   bending: generateBendingConstraints(2) with a soft material (kLST = kBendStiffness);
//   collisions: SDF_RS (nodes vs rigid shapes) | CL_SS | CL_SELF (cluster self-collision,
//   generateClusters(kClusters)); collision margin = the cloth's thickness;
//   kDF = cloth friction, kDP = cloth damping; 4 position iterations (Bullet's default of 1
//   diverges on these cloths), other iterations Bullet's defaults.
// Bullet's mass-spring stiffnesses are dimensionless [0, 1] position-projection factors, so
// the scene's N/m stiffnesses have no exact counterpart. Static planes become 10 m thick boxes
// whose top face is the plane (Bullet's SDF rigid–soft collision handles convex shapes only).
#include <memory>
#include <string>
#include <vector>

#include <BulletSoftBody/btSoftBody.h>
#include <BulletSoftBody/btSoftBodyRigidBodyCollisionConfiguration.h>
#include <BulletSoftBody/btSoftRigidDynamicsWorld.h>
#include <btBulletDynamicsCommon.h>

#include "engine/world_def.h"

namespace impetus::peers {

struct BulletClothSettings {
  int clusters = 64;              // generateClusters(k); 0 = one cluster per triangle
  double bend_stiffness = 0.1;    // kLST of the distance-2 bending links
  // Bullet's default (1) lets both benchmark cloths blow up (edge strain > 1e5 within the
  // run); 2 is the least that stays bounded; 4 keeps the drape's strain under 10 %.
  int position_iterations = 4;    // 0 = Bullet's default (1)
  bool self_collision = true;     // honour the cloth's self_collision flag (false: never)
  bool vertex_face = false;       // add VF_SS (vertex–face soft–soft) to the cluster test
  double margin = 0;              // collision margin [m]; 0 = the cloth's thickness
};

class BulletClothWorld {
 public:
  /// Throws std::runtime_error for content it cannot model (convex/mesh rigid shapes).
  BulletClothWorld(const SceneDef& scene, const BulletClothSettings& settings);
  ~BulletClothWorld();
  BulletClothWorld(const BulletClothWorld&) = delete;
  BulletClothWorld& operator=(const BulletClothWorld&) = delete;

  void step();
  int cloth_count() const { return static_cast<int>(cloths_.size()); }
  /// Node positions of cloth `index` in impetus's vertex numbering.
  void read_cloth(int index, std::vector<Vec3>& x) const;
  int node_count(int index) const;
  int link_count(int index) const;
  int cluster_count(int index) const;

 private:
  double dt_ = 0;
  int substeps_ = 1;
  std::unique_ptr<btSoftBodyRigidBodyCollisionConfiguration> configuration_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btDbvtBroadphase> broadphase_;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  std::unique_ptr<btSoftRigidDynamicsWorld> world_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  std::vector<std::unique_ptr<btSoftBody>> cloths_;
};

}  // namespace impetus::peers
