// reduce_to_four on exact ties: a set whose choice is fixed by hand, kept under rigid motions
// (rounding must not settle a tie), and the box–hull pair whose manifold changed when only moved.
#include "collision/narrowphase/contact_reduction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "collision/narrowphase/narrowphase.h"
#include "collision/shape/convex_hull.h"
#include "tests/collision/narrowphase/narrowphase_reference.h"

namespace impetus {
namespace {

std::set<std::uint32_t> ids_of(const ContactPoint* points, int n) {
  std::set<std::uint32_t> ids;
  for (int i = 0; i < n; ++i) ids.insert(points[i].feature_id);
  return ids;
}

TEST(ReduceToFour, EqualTrianglesGoToTheDeeperPointUnderEveryRigidMotion) {
  // A convex pentagon (z = 0). A is deepest, B farthest from A; C and D lie on a line parallel
  // to AB, so ABC and ABD have exactly the same area: D is deeper and must be kept. Then E is
  // the point farthest outside ABD (edge AD: (2,1)×(−0.5,0.8) = 2.1 against C's (2,1)×(1,1) = 1).
  // Had C been taken, D would lose to E outside ABC and the set would be {A, B, C, E}.
  struct P {
    Vec3 at;
    double separation;
    std::uint32_t id;
  };
  const std::array<P, 5> pentagon = {{{Vec3(0, 0, 0), -0.5, 'A'},
                                      {Vec3(3, 0, 0), -0.3, 'B'},
                                      {Vec3(1, 1, 0), -0.1, 'C'},  // listed before D on purpose
                                      {Vec3(2, 1, 0), -0.2, 'D'},
                                      {Vec3(-0.5, 0.8, 0), -0.05, 'E'}}};
  const std::set<std::uint32_t> expected = {'A', 'B', 'D', 'E'};
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 500; ++trial) {
    // The first trial is the frame the points were written in.
    const Pose motion = trial == 0 ? Pose{}
                                   : Pose{testref::random_vector(rng, -3, 3),
                                          testref::random_rotation(rng)};
    std::array<ContactPoint, 5> points;
    for (int i = 0; i < 5; ++i) {
      points[i].point_a = motion.apply(pentagon[i].at);
      points[i].separation = pentagon[i].separation;
      points[i].feature_id = pentagon[i].id;
    }
    const int k = reduce_to_four(points.data(), 5);
    ASSERT_EQ(k, 4) << trial;
    EXPECT_EQ(ids_of(points.data(), k), expected) << trial;
  }
}

TEST(Collide, BoxSunkIntoAHullKeepsItsManifoldWhenMoved) {
  // The box–hull pair of Collide.ConvexPairsAgreeWithSupportFunctionReference (box–convex case
  // 11 with clang's draws) that lost a point under a rigid motion: the hull's triangle is the
  // reference face and the box face clipped by it is a pentagon with two points on each of two
  // parallel box edges, whose triangles with the first two kept points have equal areas.
  const Shape box = Shape::box(Vec3(0.17036065326952432, 0.17681504513153684, 0.25392622341193677));
  const std::vector<Vec3> vertices = {
      {0.19465209218103971, 0.48127655992335533, -0.086742433422885887},
      {-0.33226853681949609, -0.29119625223268208, -0.03897908241735383},
      {0.022627598039679914, 0.48547475422824765, -0.34232627553476214},
      {-0.3745049963113854, -0.11594780855507096, 0.12357757525363587},
      {-0.1449344218351642, 0.50209243840378115, -0.17126516462033392},
      {0.26856804086796404, -0.035012249714464642, 0.49429796191770065},
      {-0.20117972287111435, -0.33587663310935606, 0.4198796611089996},
      {-0.13825128583482435, -0.1253067693297337, 0.62201415047639574},
      {0.28310329378762805, -0.22680660713999928, -0.38052288171623849},
      {0.26484359487068965, 0.37201604347550432, -0.21539927886778268},
      {0.2181452177823141, 0.40969593628303125, -0.26905715696181703},
      {0.12717596561045932, -0.32168611236387018, 0.5151708289391379},
      {0.088871888382102721, -0.36926995280684299, 0.49203755584416226},
      {0.30007636101611268, 0.11079708131034413, 0.41524444742763017},
      {-0.1878857799386173, 0.31375055397459073, 0.46227139416445734},
      {0.096313411730382839, -0.48631077564346487, -0.29807520934094095}};
  const Shape hull = Shape::convex(std::make_shared<const ConvexHull>(*build_convex_hull(vertices, nullptr)));
  const Pose pa{Vec3(-0.034108915896671421, 0.47717560060009911, -0.3373780518436722),
                Quat(0.42025861840134221, 0.8345078527073404, 0.35620102348832439,
                     -0.010008411215027517).normalized()};
  const Pose pb{Vec3(-0.25532925895078484, 0.65457216897313986, -0.35996930472497191),
                Quat(0.055626824259033543, 0.31619592293395937, -0.065872502708609684,
                     0.94476801815562139).normalized()};
  const double margin = 0.02;
  Manifold m;
  ASSERT_TRUE(collide(box, pa, hull, pb, margin, m));
  ASSERT_EQ(m.count, 4);
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 200; ++trial) {
    const Pose t{testref::random_vector(rng, -3, 3), testref::random_rotation(rng)};
    Manifold u;
    ASSERT_TRUE(collide(box, t * pa, hull, t * pb, margin, u));
    ASSERT_EQ(u.count, m.count) << trial;
    EXPECT_EQ(ids_of(u.points.data(), u.count), ids_of(m.points.data(), m.count)) << trial;
    for (int i = 0; i < m.count; ++i) {
      double best = 1e300;
      for (int j = 0; j < u.count; ++j) {
        best = std::min(best, (t.apply(m.points[i].point_a) - u.points[j].point_a).norm());
      }
      EXPECT_LT(best, 1e-9) << trial;
    }
  }
}

}  // namespace
}  // namespace impetus
