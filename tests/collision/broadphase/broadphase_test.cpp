// The broadphase adapter against brute-force box overlap on random boxes.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <stdlib.h>

#include "collision/base/parallel.h"
#include "collision/broadphase/broadphase.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

using test::draw_vec3;

TEST(Broadphase, PairsEqualBruteForceOverlapsSortedAndStaticStaticExcluded) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> pos(-5, 5), size(0.05, 1.0);
  const int n = 300;
  std::vector<Aabb> boxes(n);
  std::vector<bool> is_static(n);
  Broadphase bp;
  for (int i = 0; i < n; ++i) {
    Vec3 c = draw_vec3(pos, rng);
    Vec3 h = draw_vec3(size, rng);
    boxes[i] = Aabb{c - h, c + h};
    is_static[i] = (i % 4 == 0);
    bp.add(i, boxes[i], is_static[i]);
  }
  for (int round = 0; round < 3; ++round) {
    // Move the dynamic boxes; stale pairs from the previous round must disappear.
    for (int i = 0; i < n; ++i) {
      if (is_static[i]) continue;
      Vec3 shift = 0.3 * draw_vec3(pos, rng);
      boxes[i] = Aabb{boxes[i].min + shift, boxes[i].max + shift};
      bp.update(i, boxes[i]);
    }
    std::vector<std::pair<int, int>> pairs;
    bp.compute_pairs(pairs);
    std::vector<std::pair<int, int>> expected;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (!(is_static[i] && is_static[j]) && boxes[i].overlaps(boxes[j])) expected.emplace_back(i, j);
    ASSERT_GT(expected.size(), 10u);
    EXPECT_EQ(pairs, expected) << "round " << round;
  }
}

// Brute force: every pair of present boxes that overlap (closed), not both static.
std::vector<std::pair<int, int>> brute_force_pairs(const std::vector<Aabb>& boxes,
                                                   const std::vector<bool>& is_static,
                                                   const std::vector<bool>& present) {
  std::vector<std::pair<int, int>> expected;
  const int n = static_cast<int>(boxes.size());
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (present[i] && present[j] && !(is_static[i] && is_static[j]) && boxes[i].overlaps(boxes[j]))
        expected.emplace_back(i, j);
  return expected;
}

TEST(Broadphase, SweepFindsEveryOverlapThroughRemovalsTouchingBoxesAndThreadCounts) {
  // A pile-like scene: small dynamic boxes over a static ground and walls that span it (the
  // sweep's worst case), boxes that only touch (closed boxes count), boxes removed and added
  // again under the same index, and moves large enough to reorder the sweep and switch its
  // axis. Pairs must equal brute force, and be the same for 1, 2 and 3 threads.
  setenv("IMPETUS_IGNORE_LOAD", "1", 1);  // the parallel path even on a busy machine
  refresh_idle_cores();
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> pos(-3, 3), size(0.05, 0.3), unit(0, 1);
  const int n = 700;
  std::vector<Aabb> boxes(n);
  std::vector<bool> is_static(n, false), present(n, true);
  Broadphase bp;
  boxes[0] = Aabb{Vec3(-4, -4, -1), Vec3(4, 4, 0)};     // ground
  boxes[1] = Aabb{Vec3(-4, -4, 0), Vec3(-3.5, 4, 3)};   // wall
  boxes[2] = Aabb{Vec3(3.5, -4, 0), Vec3(4, 4, 3)};     // wall
  for (int i = 0; i < 3; ++i) {
    is_static[i] = true;
    bp.add(i, boxes[i], true);
  }
  for (int i = 3; i < n; ++i) {
    const Vec3 c = draw_vec3(pos, rng);
    const Vec3 h = draw_vec3(size, rng);
    boxes[i] = Aabb{c - h, c + h};
    bp.add(i, boxes[i], false);
  }
  // Touching: box 4 starts exactly where box 3 ends, on every axis in turn.
  for (int axis = 0; axis < 3; ++axis) {
    Aabb b = boxes[3];
    const double width = b.max[axis] - b.min[axis];
    b.min[axis] += width;
    b.max[axis] += width;
    boxes[4 + axis] = b;
    bp.update(4 + axis, b);
  }
  for (int round = 0; round < 6; ++round) {
    std::vector<std::pair<int, int>> one, two, three;
    bp.compute_pairs(one, 1);
    bp.compute_pairs(two, 2);
    bp.compute_pairs(three, 3);  // shares of unequal length, more threads than cores
    const std::vector<std::pair<int, int>> expected = brute_force_pairs(boxes, is_static, present);
    ASSERT_GT(expected.size(), 50u) << "round " << round;
    EXPECT_EQ(one, expected) << "round " << round;
    EXPECT_EQ(two, expected) << "round " << round;
    EXPECT_EQ(three, expected) << "round " << round;
    if (round == 0) {
      for (int axis = 0; axis < 3; ++axis)
        EXPECT_TRUE(std::binary_search(one.begin(), one.end(), std::make_pair(3, 4 + axis))) << axis;
    }
    // Remove some, add back some removed ones elsewhere, move the rest (round 3 stretches the
    // cloud along z so that the sweep axis changes; round 4 mirrors it).
    for (int i = 7; i < n; ++i) {
      const double u = unit(rng);
      if (present[i] && u < 0.05) {
        bp.remove(i);
        present[i] = false;
      } else if (!present[i] && u < 0.5) {
        const Vec3 c = draw_vec3(pos, rng);
        boxes[i] = Aabb{c - Vec3::Constant(0.1), c + Vec3::Constant(0.1)};
        bp.add(i, boxes[i], false);
        present[i] = true;
      } else if (present[i]) {
        Vec3 shift = 0.2 * draw_vec3(pos, rng);
        if (round == 3) shift.z() += 4.0 * boxes[i].center().z();
        boxes[i] = Aabb{boxes[i].min + shift, boxes[i].max + shift};
        // Round 4 turns the cloud inside out: every order reverses (the insertion sort's
        // budget runs out and a full sort takes over).
        if (round == 4) boxes[i] = Aabb{-boxes[i].max, -boxes[i].min};
        bp.update(i, boxes[i]);
      }
    }
  }
}

// Does the segment from + f (to − from), f in [0, 1], meet the closed box? Slab clipping.
bool segment_meets_box(const Vec3& from, const Vec3& to, const Aabb& box) {
  double lo = 0, hi = 1;
  for (int k = 0; k < 3; ++k) {
    const double d = to[k] - from[k];
    if (d == 0) {
      if (from[k] < box.min[k] || from[k] > box.max[k]) return false;
      continue;
    }
    double a = (box.min[k] - from[k]) / d, b = (box.max[k] - from[k]) / d;
    if (a > b) std::swap(a, b);
    lo = std::max(lo, a);
    hi = std::min(hi, b);
  }
  return lo <= hi;
}

TEST(Broadphase, PairsStayRightWhileASceneShrinksToAFewBoxesAndGrowsAgain) {
  // A few boxes are tested all against all, more are swept; a scene crossing that size either
  // way (bodies destroyed, then created) must keep the brute-force answer, a box with a NaN
  // bound (a diverging body) left out by both.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> pos(-1.5, 1.5), size(0.1, 0.6);
  const int n = 48;
  std::vector<Aabb> boxes(n);
  std::vector<bool> is_static(n), present(n, false);
  Broadphase bp;
  auto place = [&](int i) {
    const Vec3 c = draw_vec3(pos, rng);
    const Vec3 h = draw_vec3(size, rng);
    boxes[i] = Aabb{c - h, c + h};
  };
  for (int i = 0; i < n; ++i) {
    place(i);
    is_static[i] = i % 5 == 0;
    bp.add(i, boxes[i], is_static[i]);
    present[i] = true;
  }
  // Present counts per round: swept, all pairs, all pairs, swept again.
  const int keep[] = {48, 6, 12, 48};
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < n; ++i) {
      const bool wanted = i < keep[round];
      if (present[i] && !wanted) bp.remove(i);
      if (!present[i] && wanted) {
        place(i);
        bp.add(i, boxes[i], is_static[i]);
      }
      present[i] = wanted;
      if (present[i] && !is_static[i]) {
        place(i);
        bp.update(i, boxes[i]);
      }
    }
    // Box 1 diverges this round: its bounds are NaN and it pairs with nothing.
    const Aabb saved = boxes[1];
    boxes[1].min.x() = std::numeric_limits<double>::quiet_NaN();
    bp.update(1, boxes[1]);
    std::vector<std::pair<int, int>> pairs;
    bp.compute_pairs(pairs);
    EXPECT_EQ(pairs, brute_force_pairs(boxes, is_static, present)) << "round " << round;
    if (round > 0) {
      EXPECT_GT(pairs.size(), 0u) << round;
    }
    boxes[1] = saved;
    bp.update(1, boxes[1]);
  }
}

TEST(Broadphase, BoxAndSegmentQueriesFindWhatBruteForceFinds) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> pos(-5, 5), size(0.05, 1.0);
  const int n = 300;
  std::vector<Aabb> boxes(n);
  std::vector<bool> present(n, true);
  Broadphase bp;
  for (int i = 0; i < n; ++i) {
    const Vec3 c = draw_vec3(pos, rng);
    const Vec3 h = draw_vec3(size, rng);
    boxes[i] = Aabb{c - h, c + h};
    bp.add(i, boxes[i], i % 3 == 0);
  }
  // Moved and removed proxies: the trees' leaves are then fattened or gone.
  for (int i = 1; i < n; i += 3) {
    const Vec3 shift = 0.3 * draw_vec3(pos, rng);
    boxes[i] = Aabb{boxes[i].min + shift, boxes[i].max + shift};
    bp.update(i, boxes[i]);
  }
  for (int i = 2; i < n; i += 10) {
    bp.remove(i);
    present[i] = false;
  }
  std::vector<std::pair<int, int>> pairs;
  bp.compute_pairs(pairs);

  int box_hits = 0, segment_hits = 0;
  std::vector<int> found;
  for (int q = 0; q < 200; ++q) {
    const Vec3 c = draw_vec3(pos, rng);
    const Vec3 h = draw_vec3(size, rng);
    const Aabb query{c - h, c + h};
    bp.query_box(query, found);
    std::vector<int> expected;
    for (int i = 0; i < n; ++i)
      if (present[i] && boxes[i].overlaps(query)) expected.push_back(i);
    EXPECT_EQ(found, expected) << "box query " << q;
    box_hits += static_cast<int>(expected.size());

    const Vec3 from = draw_vec3(pos, rng);
    Vec3 to = draw_vec3(pos, rng);
    if (q % 4 == 0) to.y() = from.y();  // axis-parallel components take Bullet's huge inverse
    bp.query_segment(from, to, 1e-9, found);
    EXPECT_TRUE(std::is_sorted(found.begin(), found.end()));
    for (int i : found) EXPECT_TRUE(present[i]) << "removed proxy " << i << " reported";
    for (int i = 0; i < n; ++i) {
      if (!present[i] || !segment_meets_box(from, to, boxes[i])) continue;
      ++segment_hits;
      EXPECT_TRUE(std::binary_search(found.begin(), found.end(), i))
          << "segment query " << q << " lost box " << i;
    }
  }
  EXPECT_GT(box_hits, 100);
  EXPECT_GT(segment_hits, 100);
}

}  // namespace
}  // namespace impetus
