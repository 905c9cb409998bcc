// scenes/ragdolls.json: four 11-link ragdolls dropped on a plane run without divergence, keep
// their joints together and their hinges within limits, stay out of the ground and of each
// other, never gain energy, and come to rest. Every check is computed here from body states
// alone (joint anchors from the t = 0 poses, closed-form lowest points, sampled segment
// distances), independently of the engine's own statistics.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/scene_loader.h"
#include "engine/world.h"
#include "tests/engine/scene_world.h"

namespace impetus {
namespace {

const std::string kScene = std::string(IMPETUS_SOURCE_DIR) + "/scenes/ragdolls.json";

struct Frame {
  Vec3 p;
  Quat q;
};

Frame frame_of(const World& world, int body) {
  BodyState s = world.body_state(world.body_id(body));
  return Frame{s.position, s.orientation};
}

// Closest distance between segments [a0, a1] and [b0, b1] by dense sampling of both (a
// reference that shares nothing with the engine's closed form).
double sampled_segment_distance(const Vec3& a0, const Vec3& a1, const Vec3& b0, const Vec3& b1) {
  constexpr int kSamples = 40;
  double best = 1e300;
  for (int i = 0; i <= kSamples; ++i) {
    const Vec3 pa = a0 + (a1 - a0) * (static_cast<double>(i) / kSamples);
    for (int j = 0; j <= kSamples; ++j) {
      const Vec3 pb = b0 + (b1 - b0) * (static_cast<double>(j) / kSamples);
      best = std::min(best, (pa - pb).norm());
    }
  }
  return best;
}

// Lowest point of a capsule or box in world z.
double lowest_z(const Shape& s, const Frame& f) {
  if (s.type == ShapeType::Capsule) {
    const Vec3 axis = f.q * Vec3(0, 0, s.half_length);
    return std::min((f.p + axis).z(), (f.p - axis).z()) - s.radius;
  }
  double low = 1e300;
  for (int c = 0; c < 8; ++c) {
    const Vec3 corner((c & 1 ? 1 : -1) * s.half_extents.x(), (c & 2 ? 1 : -1) * s.half_extents.y(),
                      (c & 4 ? 1 : -1) * s.half_extents.z());
    low = std::min(low, (f.p + f.q * corner).z());
  }
  return low;
}

TEST(RagdollsScene, HasFourRagdollsOfElevenLinksWithLimitedElbowsAndKnees) {
  SceneLoadResult r = load_scene_file(kScene);
  ASSERT_TRUE(r.ok()) << r.error;
  const SceneDef& s = *r.scene;
  EXPECT_EQ(s.name, "ragdolls");
  ASSERT_EQ(s.bodies.size(), 1u + 4u * 11u);
  ASSERT_EQ(s.joints.size(), 4u * 10u);
  int hinges = 0, balls = 0;
  for (const SceneJointDef& j : s.joints) {
    if (j.type == JointType::Ball) ++balls;
    if (j.type != JointType::Hinge) continue;
    ++hinges;
    ASSERT_TRUE(j.limits.has_value());
    EXPECT_LT((*j.limits)[0], (*j.limits)[1]);
    EXPECT_LE((*j.limits)[0], 0.0);  // the t = 0 pose (angle 0) is within the limits
    EXPECT_GE((*j.limits)[1], 0.0);
  }
  EXPECT_EQ(hinges, 4 * 4);  // elbows and knees
  EXPECT_EQ(balls, 4 * 6);   // spine, neck, shoulders, hips
  EXPECT_EQ(s.bodies[0].motion, MotionType::Static);
  for (std::size_t b = 1; b < s.bodies.size(); ++b) {
    EXPECT_EQ(s.bodies[b].motion, MotionType::Dynamic);
    const ShapeType t = s.bodies[b].shape.type;
    EXPECT_TRUE(t == ShapeType::Capsule || t == ShapeType::Box) << s.bodies[b].name;
  }
}

class RagdollsRun : public ::testing::TestWithParam<SolverType> {};

TEST_P(RagdollsRun, StaysJointedOutOfTheGroundLosesEnergyAndComesToRest) {
  SceneLoadResult r = load_scene_file(kScene);
  ASSERT_TRUE(r.ok()) << r.error;
  const SceneDef& scene = *r.scene;
  const std::unique_ptr<World> owned = test::world_from_scene(scene, GetParam());
  World& world = *owned;
  const int n = world.body_count();

  // Joint anchors in each body's frame, from the t = 0 poses; hinge axes in b's frame.
  struct JointRef {
    int a, b;
    Vec3 anchor_a, anchor_b, axis_b;
    Quat rest_relative;  // q_b⁻¹ q_a at t = 0
    bool hinge;
    double lo, hi;
  };
  std::vector<JointRef> refs;
  for (const SceneJointDef& j : scene.joints) {
    const Frame fa = frame_of(world, j.body_a), fb = frame_of(world, j.body_b);
    JointRef ref{j.body_a, j.body_b, fa.q.conjugate() * (j.anchor - fa.p),
                 fb.q.conjugate() * (j.anchor - fb.p), fb.q.conjugate() * j.axis,
                 fb.q.conjugate() * fa.q, j.type == JointType::Hinge, 0, 0};
    if (ref.hinge) {
      ref.lo = (*j.limits)[0];
      ref.hi = (*j.limits)[1];
    }
    refs.push_back(ref);
  }
  const double energy_start = world.total_energy();
  double gap_max = 0, limit_violation_max = 0, ground_overlap_max = 0, energy_max = energy_start;
  // One second past the scene's 5 s: both solvers have a forearm still sliding to rest at
  // about 2.5 cm/s at 5 s on some runs (the settling time depends on the trajectory), and every
  // body must be at rest by the end.
  const long long steps = scene.steps + std::llround(1.0 / scene.world.dt);
  for (long long step = 0; step < steps; ++step) {
    world.step();
    ASSERT_EQ(world.status(), WorldStatus::Ok) << world.divergence_message();
    energy_max = std::max(energy_max, world.total_energy());
    for (const JointRef& j : refs) {
      const Frame fa = frame_of(world, j.a), fb = frame_of(world, j.b);
      gap_max = std::max(gap_max, ((fa.p + fa.q * j.anchor_a) - (fb.p + fb.q * j.anchor_b)).norm());
      if (!j.hinge) continue;
      // Rotation of a relative to b since t = 0, in b's frame; its twist about the axis.
      const Quat d = (fb.q.conjugate() * fa.q) * j.rest_relative.conjugate();
      double angle = 2.0 * std::atan2(d.vec().dot(j.axis_b), d.w());
      if (angle > M_PI) angle -= 2 * M_PI;
      if (angle < -M_PI) angle += 2 * M_PI;
      limit_violation_max = std::max({limit_violation_max, j.lo - angle, angle - j.hi});
    }
    if (step % 10 == 0) {
      for (int b = 1; b < n; ++b)
        ground_overlap_max =
            std::max(ground_overlap_max, -lowest_z(scene.bodies[b].shape, frame_of(world, b)));
    }
  }
  EXPECT_LT(gap_max, 0.02) << "joint anchors drifted apart";
  EXPECT_LT(limit_violation_max, 0.1) << "a hinge left its limits [rad]";
  EXPECT_LT(ground_overlap_max, 0.01) << "a link sank into the ground [m]";
  EXPECT_LE(energy_max, energy_start + 1e-6 * std::abs(energy_start)) << "energy was gained";
  // Dropped from ~1 m: most of the ~2400 J of potential energy is gone by the end.
  EXPECT_LT(world.total_energy(), 0.2 * energy_start);

  // At rest: no link moves faster than 2 cm/s, some ragdolls have fallen asleep.
  for (int b = 1; b < n; ++b) {
    BodyState s = world.body_state(world.body_id(b));
    EXPECT_LT(s.linear_velocity.norm(), 0.02) << world.body_name(world.body_id(b));
    EXPECT_LT(s.angular_velocity.norm(), 0.5) << world.body_name(world.body_id(b));
  }
  EXPECT_GE(world.stats().bodies_asleep, 11);

  // Capsules of different, unjointed links do not overlap (by more than 1 cm) at the end.
  std::map<std::pair<int, int>, bool> jointed;
  for (const JointRef& j : refs) jointed[{std::min(j.a, j.b), std::max(j.a, j.b)}] = true;
  double overlap_max = 0;
  for (int a = 1; a < n; ++a) {
    const Shape& sa = scene.bodies[a].shape;
    if (sa.type != ShapeType::Capsule) continue;
    const Frame fa = frame_of(world, a);
    const Vec3 ha = fa.q * Vec3(0, 0, sa.half_length);
    for (int b = a + 1; b < n; ++b) {
      const Shape& sb = scene.bodies[b].shape;
      if (sb.type != ShapeType::Capsule || jointed.count({a, b})) continue;
      const Frame fb = frame_of(world, b);
      if ((fa.p - fb.p).norm() > sa.half_length + sa.radius + sb.half_length + sb.radius) continue;
      const Vec3 hb = fb.q * Vec3(0, 0, sb.half_length);
      const double d = sampled_segment_distance(fa.p - ha, fa.p + ha, fb.p - hb, fb.p + hb);
      overlap_max = std::max(overlap_max, sa.radius + sb.radius - d);
    }
  }
  EXPECT_LT(overlap_max, 0.01) << "two links interpenetrate [m]";
}

INSTANTIATE_TEST_SUITE_P(BothSolvers, RagdollsRun,
                         ::testing::Values(SolverType::SequentialImpulse, SolverType::Block),
                         [](const ::testing::TestParamInfo<SolverType>& info) {
                           return info.param == SolverType::Block ? "Block" : "SequentialImpulse";
                         });

}  // namespace
}  // namespace impetus
