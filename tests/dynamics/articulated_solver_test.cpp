// Joints at large hinge angles and the articulated super-block of the iterative method:
// - the hinge's position error is the angle between the hinge axis as carried by each body
//   (checked against that angle computed here), whatever the hinge angle, and a full-gain
//   post-stabilisation removes it;
// - the iterative method with the super-block closes every joint of a chain in one sweep (the
//   anchor velocities computed here agree), where plain block Gauss–Seidel does not.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "dynamics/block_solver.h"
#include "dynamics/constraint_rows.h"

namespace impetus {
namespace {

RigidBodySim make_link(const Vec3& x, const Quat& q) {
  RigidBodySim b;
  b.x = x;
  b.q = q;
  b.dynamic = b.moving = true;
  b.inv_mass = 1.0 / 0.8;
  b.inertia_local = Vec3(0.01, 0.02, 0.015).asDiagonal();
  b.inv_inertia_local = b.inertia_local.inverse();
  b.refresh_world_inertia();
  return b;
}

// A hinge about world z through the origin between a (index 0) and b (index 1), made at the
// identity poses; then a is turned by `angle` about z and tilted by `tilt` about x.
struct HingePair {
  std::vector<RigidBodySim> bodies;
  JointSim joint;
};

HingePair hinge_pair(double angle, double tilt) {
  HingePair p;
  p.bodies.push_back(make_link(Vec3(0.3, 0, 0), Quat::Identity()));
  p.bodies.push_back(make_link(Vec3(-0.3, 0, 0), Quat::Identity()));
  JointSim& j = p.joint;
  j.kind = JointKind::Hinge;
  j.body_a = 0;
  j.body_b = 1;
  j.anchor_a = Vec3(-0.3, 0, 0);
  j.anchor_b = Vec3(0.3, 0, 0);
  j.axis_a = j.axis_b = Vec3::UnitZ();
  j.rest_relative = Quat::Identity();
  // Turn a about the anchor (the origin), so the anchors still meet.
  const Quat turn = Quat(Eigen::AngleAxisd(tilt, Vec3::UnitX())) * Quat(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
  p.bodies[0].q = turn;
  p.bodies[0].x = turn * Vec3(0.3, 0, 0);
  p.bodies[0].refresh_world_inertia();
  return p;
}

// The angle between the two bodies' copies of the hinge axis, from the poses alone.
double axis_angle(const HingePair& p) {
  const Vec3 by_a = p.bodies[0].q * p.joint.axis_a;
  const Vec3 by_b = p.bodies[1].q * p.joint.axis_b;
  return std::atan2(by_a.cross(by_b).norm(), by_a.dot(by_b));
}

TEST(HingeError, IsTheAxisMisalignmentAtAnyHingeAngle) {
  for (double angle : {0.0, 0.7, 1.6, 2.4, 3.0}) {
    for (double tilt : {1e-4, 0.01, 0.2}) {
      const HingePair p = hinge_pair(angle, tilt);
      const double expected = axis_angle(p);
      ASSERT_NEAR(expected, tilt, 1e-12);
      EXPECT_NEAR(measure_joint_error(p.joint, p.bodies).angular, expected, 1e-9 * (1 + expected))
          << "angle " << angle << " tilt " << tilt;
      std::vector<ConstraintBlock> blocks;
      append_joint_blocks(p.joint, 0, p.bodies, 1.0 / 240, blocks);
      ASSERT_EQ(blocks.size(), 2u);
      const Vec3 c = joint_block_position_error(p.joint, blocks[1], p.bodies);
      EXPECT_NEAR(std::hypot(c[0], c[1]), expected, 1e-9 * (1 + expected))
          << "angle " << angle << " tilt " << tilt;
    }
  }
}

// The pair after one step of the solver with zero velocities afterwards: what the position
// correction alone does to the hinge.
HingePair corrected_hinge(const HingePair& p, const BlockSolverSettings& settings) {
  Island island;
  island.bodies = {0, 1};
  island.joints = {0};
  std::vector<ContactConstraint> contacts;
  std::vector<JointSim> joints = {p.joint};
  std::vector<RigidBodySim> bodies = p.bodies;
  IslandBlockSolver solver;
  solver.solve_velocities(island, bodies, contacts, joints, 1.0 / 240, settings);
  for (RigidBodySim& b : bodies) {
    b.v.setZero();
    b.w.setZero();
  }
  solver.stabilize_positions(bodies, contacts, joints, settings);
  HingePair after = p;
  after.bodies = bodies;
  return after;
}

TEST(HingeError, FullGainStabilisationClosesATiltedHingeAtItsFarAngle) {
  // At 2.4 rad the perpendicular part of the relative rotation vector is the tilt turned by
  // about 69° about the axis; a full-gain correction along it would open the joint further.
  for (double angle : {0.0, 2.4, 3.0}) {
    const HingePair p = hinge_pair(angle, 0.05);
    for (BlockMethod method : {BlockMethod::Exact, BlockMethod::Iterative}) {
      BlockSolverSettings settings;
      settings.method = method;
      EXPECT_LT(axis_angle(corrected_hinge(p, settings)), 0.05 * 0.05)
          << "angle " << angle << " method " << int(method);
    }
  }
}

// The exact correction is a Newton iteration on the position error: a pass after the first
// runs only while the error left is above position_tolerance.
TEST(HingeError, ExactCorrectionPassesStopBelowThePositionTolerance) {
  const HingePair p = hinge_pair(2.4, 0.2);
  auto corrected = [&](int passes, double tolerance) {
    BlockSolverSettings settings;
    settings.method = BlockMethod::Exact;
    settings.stabilization_passes = passes;
    settings.position_tolerance = tolerance;
    return corrected_hinge(p, settings);
  };
  const HingePair one = corrected(1, 0.0);
  const double left = axis_angle(one);
  ASSERT_GT(left, 1e-9);  // a 0.2 rad tilt is not closed by one linearised pass
  ASSERT_LT(left, 0.2);
  // Tolerance below what the first pass leaves: the second pass runs and closes it further.
  const HingePair two = corrected(2, 0.5 * left);
  EXPECT_LT(axis_angle(two), 0.5 * left);
  // Above it: the result is the first pass's, bit for bit.
  const HingePair stopped = corrected(2, 2.0 * left);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(stopped.bodies[i].x, one.bodies[i].x);
    EXPECT_EQ(stopped.bodies[i].q.coeffs(), one.bodies[i].q.coeffs());
  }
}

// A chain of n links hanging from the world by ball joints, every link moving differently.
struct Chain {
  std::vector<RigidBodySim> bodies;
  std::vector<JointSim> joints;
  Island island;
};

Chain chain(int n) {
  Chain c;
  for (int i = 0; i < n; ++i) {
    RigidBodySim b = make_link(Vec3(0, 0, -0.2 * i), Quat(Eigen::AngleAxisd(0.1 * i, Vec3(1, 1, 0).normalized())));
    b.v = Vec3(0.5 * std::sin(i), 0.3 * std::cos(2 * i), -0.2);
    b.w = Vec3(std::cos(i), 0.5, -std::sin(3 * i));
    c.bodies.push_back(b);
    JointSim j;
    j.kind = JointKind::Ball;
    j.body_a = i;
    j.body_b = i - 1;
    const Vec3 anchor(0, 0, -0.2 * i + 0.1);
    j.anchor_a = b.q.conjugate() * (anchor - b.x);
    j.anchor_b = i > 0 ? Vec3(c.bodies[i - 1].q.conjugate() * (anchor - c.bodies[i - 1].x)) : anchor;
    c.joints.push_back(j);
    c.island.bodies.push_back(i);
    c.island.joints.push_back(i);
  }
  return c;
}

// Largest relative velocity of a ball joint's two anchor points.
double anchor_velocity_error(const Chain& c) {
  double worst = 0;
  for (const JointSim& j : c.joints) {
    const RigidBodySim& a = c.bodies[j.body_a];
    const Vec3 pa = a.x + a.q * j.anchor_a;
    Vec3 vb = Vec3::Zero();
    if (j.body_b >= 0) {
      const RigidBodySim& b = c.bodies[j.body_b];
      vb = b.point_velocity(b.x + b.q * j.anchor_b);
    }
    worst = std::max(worst, (a.point_velocity(pa) - vb).norm());
  }
  return worst;
}

TEST(ArticulatedSuperBlock, ClosesEveryJointOfAChainInOneSweep) {
  const Chain start = chain(40);
  ASSERT_GT(anchor_velocity_error(start), 0.5);
  std::vector<ContactConstraint> contacts;
  BlockSolverSettings settings;
  settings.method = BlockMethod::Iterative;
  settings.iterative_iterations = 1;
  settings.max_joint_iterations = 1;
  Chain exact = start, super = start, plain = start;
  {
    BlockSolverSettings e = settings;
    e.method = BlockMethod::Exact;
    IslandBlockSolver solver;
    ASSERT_TRUE(solver.solve_velocities(exact.island, exact.bodies, contacts, exact.joints, 1e-3, e).exact);
  }
  {
    IslandBlockSolver solver;
    solver.solve_velocities(super.island, super.bodies, contacts, super.joints, 1e-3, settings);
  }
  {
    BlockSolverSettings p = settings;
    p.articulated_super_block = false;
    IslandBlockSolver solver;
    solver.solve_velocities(plain.island, plain.bodies, contacts, plain.joints, 1e-3, p);
  }
  // The joints hold up to the rows' compliance (1e-9 relative).
  EXPECT_LT(anchor_velocity_error(exact), 1e-6);
  EXPECT_LT(anchor_velocity_error(super), 1e-6);
  EXPECT_GT(anchor_velocity_error(plain), 1e-2);
  for (size_t i = 0; i < start.bodies.size(); ++i) {
    EXPECT_LT((super.bodies[i].v - exact.bodies[i].v).norm(), 1e-6) << i;
    EXPECT_LT((super.bodies[i].w - exact.bodies[i].w).norm(), 1e-6) << i;
  }
}

TEST(ArticulatedSuperBlock, ClosesABranchingTreeOfBallsAndHingesInOneSweepLikeTheExactSolve) {
  // A ragdoll-like tree: body 0 carries three joints (two balls and a hinge), a hinge and a ball
  // hang further down. A hinge's two blocks join the same two bodies, its limit row stays outside
  // the super-block, and body 0's joints all meet in S: one sweep must still give the exact
  // method's velocities.
  std::vector<RigidBodySim> bodies;
  const std::vector<Vec3> at = {Vec3(0, 0, 0), Vec3(0.3, 0, 0.1), Vec3(-0.3, 0, 0.1), Vec3(0, 0, -0.4),
                                Vec3(-0.3, 0, -0.3), Vec3(0.3, 0, -0.3)};
  for (size_t i = 0; i < at.size(); ++i) {
    // Turned bodies: their world inertias differ, so every row of S is coupled to the others.
    RigidBodySim b = make_link(at[i], Quat(Eigen::AngleAxisd(0.4 * i + 0.2, Vec3(1, -1, 2).normalized())));
    b.v = Vec3(0.4 * std::sin(3.0 * i), -0.3 * std::cos(i), 0.2 * i);
    b.w = Vec3(std::cos(2.0 * i), -0.6, 0.5 * std::sin(i));
    bodies.push_back(b);
  }
  // (child, parent, hinge?) with the anchor midway between them.
  const std::vector<std::tuple<int, int, bool>> links = {{1, 0, false}, {2, 0, true}, {3, 0, false},
                                                         {4, 2, true}, {5, 1, false}};
  const Vec3 hinge_axis = Vec3(1, 2, 0.5).normalized();
  std::vector<JointSim> joints;
  Island island;
  for (size_t i = 0; i < at.size(); ++i) island.bodies.push_back(static_cast<int>(i));
  for (const auto& [child, parent, hinge] : links) {
    JointSim j;
    j.kind = hinge ? JointKind::Hinge : JointKind::Ball;
    j.body_a = child;
    j.body_b = parent;
    const Vec3 anchor = 0.5 * (at[child] + at[parent]);
    const Quat& qa = bodies[child].q;
    const Quat& qb = bodies[parent].q;
    j.anchor_a = qa.conjugate() * (anchor - at[child]);
    j.anchor_b = qb.conjugate() * (anchor - at[parent]);
    j.axis_a = qa.conjugate() * hinge_axis;
    j.axis_b = qb.conjugate() * hinge_axis;
    j.rest_relative = qb.conjugate() * qa;  // the joint's rest pose is the start pose
    // Limits far from the hinge angle (0): the limit row stays out of the super-block, and
    // inactive it moves nothing.
    if (hinge) j.limits = std::array<double, 2>{-2.0, 2.0};
    island.joints.push_back(static_cast<int>(joints.size()));
    joints.push_back(j);
  }
  std::vector<ContactConstraint> contacts;
  BlockSolverSettings settings;
  settings.method = BlockMethod::Iterative;
  settings.iterative_iterations = 1;
  settings.max_joint_iterations = 1;
  std::vector<RigidBodySim> exact = bodies, super = bodies;
  {
    BlockSolverSettings e = settings;
    e.method = BlockMethod::Exact;
    IslandBlockSolver solver;
    ASSERT_TRUE(solver.solve_velocities(island, exact, contacts, joints, 1e-3, e).exact);
  }
  IslandBlockSolver solver;
  solver.solve_velocities(island, super, contacts, joints, 1e-3, settings);
  std::vector<RigidBodySim> plain = bodies;
  {
    BlockSolverSettings p = settings;
    p.articulated_super_block = false;
    IslandBlockSolver gauss_seidel;
    gauss_seidel.solve_velocities(island, plain, contacts, joints, 1e-3, p);
  }
  double plain_off = 0;
  for (size_t i = 0; i < bodies.size(); ++i) plain_off = std::max(plain_off, (plain[i].v - exact[i].v).norm());
  EXPECT_GT(plain_off, 1e-2);
  double moved = 0;
  for (size_t i = 0; i < bodies.size(); ++i) {
    EXPECT_LT((super[i].v - exact[i].v).norm(), 1e-6) << i;
    EXPECT_LT((super[i].w - exact[i].w).norm(), 1e-6) << i;
    moved = std::max(moved, (exact[i].v - bodies[i].v).norm());
  }
  EXPECT_GT(moved, 0.1);  // the joints were far from holding at the start
  // The hinges turn about their axis only.
  for (const auto& [child, parent, hinge] : links) {
    if (!hinge) continue;
    const Vec3 relative = super[child].w - super[parent].w;
    EXPECT_LT(relative.cross(hinge_axis).norm(), 1e-6) << child;
  }
}

TEST(ArticulatedSuperBlock, KeepsJointLimitsAndContactsWhileClosingTheJoints) {
  // A hinge pair whose hinge is driven into its limit, with the lower body on a floor contact.
  HingePair p = hinge_pair(0.0, 0.0);
  p.joint.limits = std::array<double, 2>{-0.1, 0.1};
  p.bodies[0].w = Vec3(0, 0, 40.0);  // a turns fast about the hinge axis: would pass +0.1 rad
  p.bodies[1].v = Vec3(0, 0, -1.0);  // b falls onto the floor below it
  RigidBodySim floor;  // static
  p.bodies.push_back(floor);
  ContactConstraint c;
  c.body_a = 2;
  c.body_b = 1;
  c.normal = Vec3::UnitZ();
  c.tangent1 = Vec3::UnitX();
  c.tangent2 = Vec3::UnitY();
  c.anchor_a = Vec3(-0.3, 0, -0.05);
  c.anchor_b = Vec3(0, 0, -0.05);
  c.friction = 0.5;
  std::vector<ContactConstraint> contacts = {c};
  prepare_contact_geometry(contacts[0], p.bodies[2], p.bodies[1], 1.0 / 240, 0.5);
  // Two hinges in the chain so the super-block is used (a single joint block needs none).
  JointSim second = p.joint;
  second.limits.reset();
  std::vector<JointSim> joints = {p.joint, second};
  Island island;
  island.bodies = {0, 1};
  island.joints = {0, 1};
  island.contacts = {0};
  BlockSolverSettings settings;
  settings.method = BlockMethod::Iterative;
  IslandBlockSolver solver;
  solver.solve_velocities(island, p.bodies, contacts, joints, 1.0 / 240, settings);
  const RigidBodySim& a = p.bodies[0];
  const RigidBodySim& b = p.bodies[1];
  // Hinge: the anchors move together and the relative rotation is about z only.
  EXPECT_LT((a.point_velocity(Vec3::Zero()) - b.point_velocity(Vec3::Zero())).norm(), 1e-3);
  const Vec3 relative = a.w - b.w;
  EXPECT_LT(std::hypot(relative.x(), relative.y()), 1e-3);
  // Limit: the hinge angle (0 now) may reach at most +0.1 rad this step.
  EXPECT_LE(relative.z() / 240, 0.1 + 1e-6);
  // Contact: b no longer moves into the floor, and the floor only pushes.
  EXPECT_GT(b.point_velocity(b.x + Vec3(0, 0, -0.05)).z(), -1e-3);
  EXPECT_GE(contacts[0].normal_impulse, 0.0);
}

}  // namespace
}  // namespace impetus
