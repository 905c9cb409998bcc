#include "tools/peers/bullet/bullet_rigid_world.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "collision/shape/mass_properties.h"

namespace impetus::peers {
namespace {

constexpr int kEllipsoidHullPoints = 162;
constexpr double kEllipsoidHullMargin = 0.001;  // m; Bullet's 0.04 default would swell it

btScalar combined_friction(const btCollisionObject* a, const btCollisionObject* b) {
  return std::sqrt(a->getFriction() * b->getFriction());
}

btScalar combined_restitution(const btCollisionObject* a, const btCollisionObject* b) {
  return std::max(a->getRestitution(), b->getRestitution());
}

// A frame at `origin` whose `column` axis (0 = x, 2 = z) is `axis` (unit).
Pose frame_with_axis(const Vec3& origin, const Vec3& axis, int column) {
  Vec3 u = axis.normalized();
  Vec3 v = any_orthogonal(u);
  Vec3 w = u.cross(v);
  Mat3 basis;
  if (column == 2) {
    basis.col(0) = v;
    basis.col(1) = w;
    basis.col(2) = u;
  } else {
    basis.col(0) = u;
    basis.col(1) = v;
    basis.col(2) = w;
  }
  return Pose{origin, Quat(basis)};
}

}  // namespace

btVector3 to_bullet(const Vec3& v) { return btVector3(v.x(), v.y(), v.z()); }
Vec3 from_bullet(const btVector3& v) { return Vec3(v.x(), v.y(), v.z()); }

btTransform to_bullet(const Pose& pose) {
  const Quat& q = pose.orientation;
  return btTransform(btQuaternion(q.x(), q.y(), q.z(), q.w()), to_bullet(pose.position));
}

Pose from_bullet(const btTransform& transform) {
  btQuaternion q = transform.getRotation();
  return Pose{from_bullet(transform.getOrigin()), Quat(q.w(), q.x(), q.y(), q.z())};
}

std::unique_ptr<btRigidBody> make_bullet_body(const SceneDef& scene, const BodyDef& def,
                                              btCollisionShape* shape, const Pose& pose) {
  if (!shape) {
    throw std::runtime_error(std::string("body '") + def.name + "': " +
                             shape_type_name(def.shape.type) + " shapes are not modelled");
  }
  const MaterialDef& material = scene.world.materials[def.material];
  double mass = 0;
  btVector3 inertia(0, 0, 0);
  if (def.motion == MotionType::Dynamic) {
    MassProperties mp = def.mass ? compute_mass_properties_with_mass(def.shape, *def.mass)
                                 : compute_mass_properties(def.shape, material.density);
    mass = mp.mass;
    // Primitives: centre of mass at the body origin, principal axes = local axes.
    inertia = to_bullet(Vec3(mp.inertia.diagonal()));
  }
  btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape, inertia);
  info.m_startWorldTransform = to_bullet(pose);
  info.m_friction = material.friction;
  info.m_restitution = material.restitution;
  auto body = std::make_unique<btRigidBody>(info);
  if (def.motion == MotionType::Dynamic) {
    body->setLinearVelocity(to_bullet(def.linear_velocity));
    body->setAngularVelocity(to_bullet(def.angular_velocity));
  } else if (def.motion == MotionType::Kinematic) {
    body->setCollisionFlags(body->getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
    body->setActivationState(DISABLE_DEACTIVATION);
  }
  return body;
}

std::unique_ptr<btCollisionShape> make_bullet_shape(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::Sphere:
      return std::make_unique<btSphereShape>(shape.radius);
    case ShapeType::Capsule:
      return std::make_unique<btCapsuleShapeZ>(shape.radius, 2.0 * shape.half_length);
    case ShapeType::Box:
      return std::make_unique<btBoxShape>(to_bullet(shape.half_extents));
    case ShapeType::Ellipsoid: {
      // Spherical Fibonacci points mapped onto the ellipsoid: an even, inscribed hull.
      auto hull = std::make_unique<btConvexHullShape>();
      const double golden = kPi * (3.0 - std::sqrt(5.0));
      for (int i = 0; i < kEllipsoidHullPoints; ++i) {
        double z = 1.0 - 2.0 * (i + 0.5) / kEllipsoidHullPoints;
        double r = std::sqrt(std::max(0.0, 1.0 - z * z));
        double phi = golden * i;
        Vec3 p(r * std::cos(phi), r * std::sin(phi), z);
        Vec3 q = p.cwiseProduct(shape.radii) - kEllipsoidHullMargin * p;
        hull->addPoint(to_bullet(q), false);
      }
      hull->recalcLocalAabb();
      hull->setMargin(kEllipsoidHullMargin);
      return hull;
    }
    case ShapeType::Plane:
      return std::make_unique<btStaticPlaneShape>(to_bullet(shape.normal), shape.offset);
    case ShapeType::Convex:
    case ShapeType::Mesh:
      return nullptr;
  }
  return nullptr;
}

void install_bullet_material_rules() {
  gCalculateCombinedFrictionCallback = &combined_friction;
  gCalculateCombinedRestitutionCallback = &combined_restitution;
}

BulletRigidWorld::BulletRigidWorld(const SceneDef& scene)
    : dt_(scene.world.dt), substeps_(std::max(1, scene.world.substeps)) {
  if (!scene.cloths.empty()) throw std::runtime_error("cloth needs the soft-body world");
  install_bullet_material_rules();
  configuration_ = std::make_unique<btDefaultCollisionConfiguration>();
  dispatcher_ = std::make_unique<btCollisionDispatcher>(configuration_.get());
  broadphase_ = std::make_unique<btDbvtBroadphase>();
  solver_ = std::make_unique<btSequentialImpulseConstraintSolver>();
  world_ = std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), broadphase_.get(),
                                                     solver_.get(), configuration_.get());
  world_->setGravity(to_bullet(scene.world.gravity));

  for (const BodyDef& def : scene.bodies) {
    std::unique_ptr<btCollisionShape> shape = make_bullet_shape(def.shape);
    auto body = make_bullet_body(scene, def, shape.get(), Pose{def.position, def.orientation});
    world_->addRigidBody(body.get());
    shapes_.push_back(std::move(shape));
    bodies_.push_back(std::move(body));
  }
  for (const SceneJointDef& joint : scene.joints) add_joint(scene, joint);
}

void BulletRigidWorld::add_joint(const SceneDef& scene, const SceneJointDef& joint) {
  btRigidBody& a = *bodies_[joint.body_a];
  btRigidBody& b = joint.body_b < 0 ? btTypedConstraint::getFixedBody() : *bodies_[joint.body_b];
  Pose pose_a{scene.bodies[joint.body_a].position, scene.bodies[joint.body_a].orientation};
  Pose pose_b;  // the world frame for body_b = -1
  if (joint.body_b >= 0) {
    pose_b = Pose{scene.bodies[joint.body_b].position, scene.bodies[joint.body_b].orientation};
  }
  std::unique_ptr<btTypedConstraint> c;
  switch (joint.type) {
    case JointType::Ball:
      c = std::make_unique<btPoint2PointConstraint>(a, b,
                                                    to_bullet(pose_a.inverse_apply(joint.anchor)),
                                                    to_bullet(pose_b.inverse_apply(joint.anchor)));
      break;
    case JointType::Hinge: {
      // Bullet's hinge axis is the frames' z; with rbA = a and the default reference frame
      // (B), getHingeAngle() is the angle of a relative to b about the axis, the scene's sign.
      Pose frame = frame_with_axis(joint.anchor, joint.axis, 2);
      auto hinge = std::make_unique<btHingeConstraint>(a, b, to_bullet(pose_a.inverse() * frame),
                                                       to_bullet(pose_b.inverse() * frame));
      if (joint.limits) hinge->setLimit((*joint.limits)[0], (*joint.limits)[1]);
      c = std::move(hinge);
      break;
    }
    case JointType::Fixed: {
      Pose frame{joint.anchor, Quat::Identity()};
      c = std::make_unique<btFixedConstraint>(a, b, to_bullet(pose_a.inverse() * frame),
                                              to_bullet(pose_b.inverse() * frame));
      break;
    }
    case JointType::Slider: {
      // btSlider measures frame B's offset from frame A along A's x, so rbA = b, rbB = a makes
      // the offset that of a relative to b, the scene's sign.
      Pose frame = frame_with_axis(joint.anchor, joint.axis, 0);
      auto slider = std::make_unique<btSliderConstraint>(
          b, a, to_bullet(pose_b.inverse() * frame), to_bullet(pose_a.inverse() * frame), true);
      slider->setLowerAngLimit(0);
      slider->setUpperAngLimit(0);
      if (joint.limits) {
        slider->setLowerLinLimit((*joint.limits)[0]);
        slider->setUpperLinLimit((*joint.limits)[1]);
      } else {
        slider->setLowerLinLimit(1);  // lower > upper: free
        slider->setUpperLinLimit(-1);
      }
      c = std::move(slider);
      break;
    }
  }
  world_->addConstraint(c.get(), /*disableCollisionsBetweenLinkedBodies=*/true);
  constraints_.push_back(std::move(c));
}

BulletRigidWorld::~BulletRigidWorld() {
  for (auto& c : constraints_) world_->removeConstraint(c.get());
  for (auto& b : bodies_) world_->removeRigidBody(b.get());
}

void BulletRigidWorld::step() {
  const double h = dt_ / substeps_;
  // maxSubSteps = 0: exactly one internal step of h, no interpolation.
  for (int s = 0; s < substeps_; ++s) world_->stepSimulation(h, 0, h);
}

void BulletRigidWorld::read_states(std::vector<ProbeBodyState>& states) const {
  states.resize(bodies_.size());
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    states[i].pose = from_bullet(bodies_[i]->getCenterOfMassTransform());
    states[i].linear_velocity = from_bullet(bodies_[i]->getLinearVelocity());
  }
}

double BulletRigidWorld::max_penetration() const {
  double deepest = 0;
  const int manifolds = dispatcher_->getNumManifolds();
  for (int m = 0; m < manifolds; ++m) {
    const btPersistentManifold* manifold = dispatcher_->getManifoldByIndexInternal(m);
    for (int k = 0; k < manifold->getNumContacts(); ++k) {
      deepest = std::max(deepest, -static_cast<double>(manifold->getContactPoint(k).getDistance()));
    }
  }
  return deepest;
}

int BulletRigidWorld::contact_points() const {
  int count = 0;
  const int manifolds = dispatcher_->getNumManifolds();
  for (int m = 0; m < manifolds; ++m) {
    count += dispatcher_->getManifoldByIndexInternal(m)->getNumContacts();
  }
  return count;
}

}  // namespace impetus::peers
