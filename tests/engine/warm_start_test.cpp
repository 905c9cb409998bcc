// warm_start_pair (engine/warm_start.h): a pair's new points take the record of their own key
// first; a point whose feature id changed takes the nearest record no other point took, within
// reach and with nearly the same normal; its friction impulse keeps its direction in the world
// when the tangent basis of the normal differs (any_orthogonal switches axes near |n.x| = 0.577).
#include <gtest/gtest.h>

#include <vector>

#include "collision/base/math.h"
#include "engine/warm_start.h"

namespace impetus {
namespace {

constexpr int kA = 3, kB = 7;

CachedImpulse record(std::uint32_t feature, const Vec3& anchor, double normal_impulse,
                     const Vec3& normal = Vec3::UnitZ(), double t1 = 0, double t2 = 0) {
  CachedImpulse r;
  r.key = contact_key(kA, kB, feature);
  r.anchor_a = anchor;
  r.normal_direction = normal;
  r.normal = normal_impulse;
  r.tangent[0] = t1;
  r.tangent[1] = t2;
  r.mode = 2;
  return r;
}

ContactConstraint point(std::uint32_t feature, const Vec3& anchor, const Vec3& normal = Vec3::UnitZ()) {
  ContactConstraint c;
  c.body_a = kA;
  c.body_b = kB;
  c.key = contact_key(kA, kB, feature);
  c.normal = normal.normalized();
  c.tangent1 = any_orthogonal(c.normal);
  c.tangent2 = c.normal.cross(c.tangent1);
  c.anchor_a = anchor;
  return c;
}

void run(std::vector<CachedImpulse> records, std::vector<ContactConstraint>& points, double reach) {
  sort_warm_cache(records);
  warm_start_pair(records.data(), records.data() + records.size(), reach, points.data(),
                  static_cast<int>(points.size()));
}

TEST(WarmStartPair, OwnKeyFirstThenTheNearestRecordNoPointTook) {
  // Record 1 lies next to the new point 9, but point 1 keeps it; point 9 gets record 2.
  std::vector<ContactConstraint> points = {point(9, Vec3(0.011, 0, 0)), point(1, Vec3(0.3, 0, 0))};
  run({record(1, Vec3(0.01, 0, 0), 1.0), record(2, Vec3(0.03, 0, 0), 2.0), record(3, Vec3(0.2, 0, 0), 3.0)},
      points, 0.05);
  EXPECT_EQ(points[1].normal_impulse, 1.0);  // its own key, however far it moved
  EXPECT_EQ(points[0].normal_impulse, 2.0);  // nearest untaken within reach (record 3 is out)
  EXPECT_EQ(points[0].mode, 2);
}

TEST(WarmStartPair, OneRecordGoesToOnePointOnly) {
  std::vector<ContactConstraint> points = {point(8, Vec3(0, 0, 0)), point(9, Vec3(0.001, 0, 0))};
  run({record(1, Vec3(0.0005, 0, 0), 4.0)}, points, 0.05);
  EXPECT_EQ(points[0].normal_impulse, 4.0);  // the first point in manifold order
  EXPECT_EQ(points[1].normal_impulse, 0.0);
}

TEST(WarmStartPair, NothingBeyondReachOrAcrossATurnedNormal) {
  std::vector<ContactConstraint> far = {point(9, Vec3(0, 0, 0))};
  run({record(1, Vec3(0.06, 0, 0), 1.0)}, far, 0.05);
  EXPECT_EQ(far[0].normal_impulse, 0.0);
  // Another face of the pair (normal 90° away) at the same place is another contact.
  std::vector<ContactConstraint> turned = {point(9, Vec3(0, 0, 0), Vec3::UnitZ())};
  run({record(1, Vec3(0, 0, 0), 1.0, Vec3::UnitX())}, turned, 0.05);
  EXPECT_EQ(turned[0].normal_impulse, 0.0);
  // 20° away is the same contact, the normal having turned.
  const Vec3 tilted(std::sin(0.35), 0, std::cos(0.35));
  std::vector<ContactConstraint> near = {point(9, Vec3(0, 0, 0), Vec3::UnitZ())};
  run({record(1, Vec3(0, 0, 0), 1.0, tilted)}, near, 0.05);
  EXPECT_EQ(near[0].normal_impulse, 1.0);
}

TEST(WarmStartPair, FrictionKeepsItsWorldDirectionAcrossATangentBasisSwitch) {
  // Two normals 1.1° apart on either side of any_orthogonal's switch: their tangent bases are
  // about 90° apart, so copying the two tangent impulses would turn the friction by 90°.
  const Vec3 before = Vec3(0.586, 0.0, 0.81).normalized(), after = Vec3(0.568, 0.0, 0.823).normalized();
  ASSERT_LT(any_orthogonal(before).dot(any_orthogonal(after)), 0.2);
  const CachedImpulse r = record(1, Vec3::Zero(), 2.0, before, 0.3, -0.2);
  const Vec3 t1 = any_orthogonal(before);
  const Vec3 world = t1 * 0.3 + before.cross(t1) * -0.2;
  std::vector<ContactConstraint> points = {point(9, Vec3::Zero(), after)};
  run({r}, points, 0.05);
  const ContactConstraint& c = points[0];
  const Vec3 got = c.tangent1 * c.tangent_impulse[0] + c.tangent2 * c.tangent_impulse[1];
  // The record's friction, less its part along the new normal.
  const Vec3 expected = world - after * after.dot(world);
  EXPECT_NEAR((got - expected).norm(), 0.0, 1e-12);
  EXPECT_GT(got.dot(world) / world.squaredNorm(), 0.99);
}

TEST(WarmStartPair, AnOwnRecordIsCopiedAsItIs) {
  std::vector<ContactConstraint> points = {point(1, Vec3::Zero())};
  run({record(1, Vec3(1, 1, 1), 2.5, Vec3::UnitX(), 0.4, 0.1)}, points, 0.05);
  EXPECT_EQ(points[0].normal_impulse, 2.5);
  EXPECT_EQ(points[0].tangent_impulse[0], 0.4);
  EXPECT_EQ(points[0].tangent_impulse[1], 0.1);
}

}  // namespace
}  // namespace impetus
