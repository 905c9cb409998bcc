#pragma once
// A SceneDef rebuilt in Bullet's btDiscreteDynamicsWorld (sequential impulses, default solver
// settings), body for body in scene order:
//   sphere → btSphereShape, capsule → btCapsuleShapeZ, box → btBoxShape (default margins),
//   ellipsoid → btConvexHullShape of 162 points on the ellipsoid (Bullet has no ellipsoid),
//   plane → btStaticPlaneShape; convex and mesh are not modelled (std::runtime_error).
// Mass and inertia come from impetus's own mass properties so that every engine simulates
// the same bodies. Friction and restitution are per body, combined as the scene format says
// (geometric mean / maximum) through Bullet's combine callbacks. Joints:
//   ball → btPoint2PointConstraint, hinge → btHingeConstraint (frames with z = axis, limits:
//   angle of a relative to b), fixed → btFixedConstraint, slider → btSliderConstraint;
// joined bodies do not collide with each other.
// Built against Bullet's float64 libraries (BT_USE_DOUBLE_PRECISION): the engine links the
// float64 BulletCollision for its broadphase, and the single-precision libraries export the
// same symbols.
#include <memory>
#include <string>
#include <vector>

#include <btBulletDynamicsCommon.h>

#include "engine/world_def.h"
#include "tools/peers/bullet/scene_probe.h"

namespace impetus::peers {

/// Bullet transform of a pose and back.
btTransform to_bullet(const Pose& pose);
Pose from_bullet(const btTransform& transform);
btVector3 to_bullet(const Vec3& v);
Vec3 from_bullet(const btVector3& v);

/// Bullet collision shape for an impetus shape (nullptr for convex and mesh).
std::unique_ptr<btCollisionShape> make_bullet_shape(const Shape& shape);

/// The Bullet rigid body for a scene body, with `shape` (null: throws, naming the body and its
/// shape type) placed at `pose`: mass and inertia from impetus's mass properties, the body's
/// material, its initial velocities, and kinematic bodies flagged as such.
std::unique_ptr<btRigidBody> make_bullet_body(const SceneDef& scene, const BodyDef& def,
                                              btCollisionShape* shape, const Pose& pose);

/// Installs the scene format's combine rules (√(μa·μb), max(ea, eb)) as Bullet's global
/// friction / restitution callbacks.
void install_bullet_material_rules();

class BulletRigidWorld {
 public:
  /// Throws std::runtime_error for a scene it cannot model (convex/mesh shapes, cloth).
  explicit BulletRigidWorld(const SceneDef& scene);
  ~BulletRigidWorld();
  BulletRigidWorld(const BulletRigidWorld&) = delete;
  BulletRigidWorld& operator=(const BulletRigidWorld&) = delete;

  /// One scene step: `substeps` fixed Bullet steps of dt / substeps.
  void step();
  /// Every body's state in scene order (body frame = Bullet's centre-of-mass frame here).
  void read_states(std::vector<ProbeBodyState>& states) const;
  /// Deepest overlap among the current contact manifolds' points [m] (0 when none).
  double max_penetration() const;
  int contact_points() const;

  btDiscreteDynamicsWorld& world() { return *world_; }
  btRigidBody& body(int index) { return *bodies_[index]; }
  btTypedConstraint& constraint(int index) { return *constraints_[index]; }

 private:
  void add_joint(const SceneDef& scene, const SceneJointDef& joint);

  double dt_ = 0;
  int substeps_ = 1;
  std::unique_ptr<btDefaultCollisionConfiguration> configuration_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btDbvtBroadphase> broadphase_;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  std::vector<std::unique_ptr<btTypedConstraint>> constraints_;
};

}  // namespace impetus::peers
