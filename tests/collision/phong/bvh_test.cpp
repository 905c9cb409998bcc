#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "collision/shape/triangle_mesh.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

TriangleMesh random_triangles(std::mt19937_64& rng, int count, double spread, double size) {
  std::uniform_real_distribution<double> c(-spread, spread), d(-size, size);
  TriangleMesh mesh;
  for (int t = 0; t < count; ++t) {
    const Vec3 center = test::draw_vec3(c, rng);
    const int base = static_cast<int>(mesh.vertices.size());
    for (int k = 0; k < 3; ++k) mesh.vertices.push_back(center + test::draw_vec3(d, rng));
    mesh.triangles.push_back({base, base + 1, base + 2});
  }
  return mesh;
}

bool box_contains(const Aabb& outer, const Aabb& inner) {
  return (outer.min.array() <= inner.min.array()).all() &&
         (inner.max.array() <= outer.max.array()).all();
}

// Structural invariants: a permutation, leaves of at most 4 partitioning it, boxes nested.
void check_structure(const Bvh& bvh, const std::vector<Aabb>& boxes) {
  const int n = static_cast<int>(boxes.size());
  if (n == 0) {
    EXPECT_TRUE(bvh.nodes.empty());
    EXPECT_TRUE(bvh.primitives.empty());
    return;
  }
  ASSERT_EQ(static_cast<int>(bvh.primitives.size()), n);
  std::vector<int> sorted = bvh.primitives;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);
  std::vector<int> covered(n, 0);
  std::vector<int> reached(bvh.nodes.size(), 0);
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    ASSERT_GE(id, 0);
    ASSERT_LT(id, static_cast<int>(bvh.nodes.size()));
    ASSERT_EQ(reached[id]++, 0) << "node reached twice";
    const Bvh::Node& node = bvh.nodes[id];
    if (node.left < 0) {
      EXPECT_LT(node.right, 0);
      EXPECT_GE(node.count, 1);
      EXPECT_LE(node.count, 4);
      for (int k = node.first; k < node.first + node.count; ++k) {
        ++covered[k];
        EXPECT_TRUE(box_contains(node.box, boxes[bvh.primitives[k]]));
      }
    } else {
      EXPECT_TRUE(box_contains(node.box, bvh.nodes[node.left].box));
      EXPECT_TRUE(box_contains(node.box, bvh.nodes[node.right].box));
      stack.push_back(node.left);
      stack.push_back(node.right);
    }
  }
  for (int c : covered) EXPECT_EQ(c, 1) << "primitive not in exactly one leaf";
  for (int r : reached) EXPECT_EQ(r, 1) << "unreachable node";
}

std::vector<Aabb> triangle_boxes(const TriangleMesh& mesh) {
  std::vector<Aabb> boxes;
  for (const std::array<int, 3>& t : mesh.triangles) {
    Aabb b;
    for (int v : t) {
      b.min = b.min.cwiseMin(mesh.vertices[v]);
      b.max = b.max.cwiseMax(mesh.vertices[v]);
    }
    boxes.push_back(b);
  }
  return boxes;
}

TEST(Bvh, QueryMatchesBruteForceOverlap) {
  std::mt19937_64 rng(42);
  TriangleMesh mesh = random_triangles(rng, 3000, 10.0, 0.6);
  mesh.build_bvh();
  const std::vector<Aabb> boxes = triangle_boxes(mesh);
  check_structure(mesh.bvh, boxes);
  std::uniform_real_distribution<double> c(-12, 12), s(0.0, 2.5);
  int empty = 0, nonempty = 0;
  for (int q = 0; q < 400; ++q) {
    const Vec3 center = test::draw_vec3(c, rng);
    const Vec3 half = test::draw_vec3(s, rng);
    Aabb query{center - half, center + half};
    std::vector<int> got;
    mesh.bvh.query(query, [&](int i) { got.push_back(i); });
    std::vector<int> expected;
    for (int i = 0; i < static_cast<int>(boxes.size()); ++i) {
      const Aabb& b = boxes[i];
      bool overlap = true;
      for (int k = 0; k < 3; ++k) {
        overlap = overlap && b.min[k] <= query.max[k] && query.min[k] <= b.max[k];
      }
      if (overlap) expected.push_back(i);
    }
    std::vector<int> sorted = got;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "visited twice";
    EXPECT_EQ(sorted, expected);
    (expected.empty() ? empty : nonempty) += 1;
  }
  // Both outcomes must be well represented for the comparison to mean something.
  EXPECT_GT(empty, 40);
  EXPECT_GT(nonempty, 40);
}

TEST(Bvh, StructureForAwkwardSizes) {
  std::mt19937_64 rng(4);
  for (int n : {0, 1, 2, 4, 5, 8, 9, 17, 100, 1023}) {
    TriangleMesh mesh = random_triangles(rng, n, 5.0, 1.0);
    mesh.build_bvh();
    SCOPED_TRACE(n);
    check_structure(mesh.bvh, triangle_boxes(mesh));
  }
  // All boxes identical: the split has nothing to go on but must still terminate.
  std::vector<Aabb> same(50, Aabb{Vec3(0, 0, 0), Vec3(1, 1, 1)});
  Bvh bvh;
  bvh.build(same);
  check_structure(bvh, same);
  int visits = 0;
  bvh.query(Aabb{Vec3(0.5, 0.5, 0.5), Vec3(2, 2, 2)}, [&](int) { ++visits; });
  EXPECT_EQ(visits, 50);
  bvh.query(Aabb{Vec3(1.5, 0.5, 0.5), Vec3(2, 2, 2)}, [&](int) { ++visits; });
  EXPECT_EQ(visits, 50);
  // An empty tree answers nothing.
  Bvh none;
  none.build({});
  none.query(Aabb{Vec3::Constant(-1e9), Vec3::Constant(1e9)}, [&](int) { ++visits; });
  EXPECT_EQ(visits, 50);
}

TEST(Bvh, DeterministicBuildAndVisitOrder) {
  std::mt19937_64 rng(9);
  TriangleMesh a = random_triangles(rng, 700, 4.0, 0.5);
  TriangleMesh b = a;
  a.build_bvh();
  b.build_bvh();
  ASSERT_EQ(a.bvh.nodes.size(), b.bvh.nodes.size());
  EXPECT_EQ(a.bvh.primitives, b.bvh.primitives);
  for (std::size_t i = 0; i < a.bvh.nodes.size(); ++i) {
    EXPECT_EQ(a.bvh.nodes[i].box.min, b.bvh.nodes[i].box.min);
    EXPECT_EQ(a.bvh.nodes[i].box.max, b.bvh.nodes[i].box.max);
    EXPECT_EQ(a.bvh.nodes[i].left, b.bvh.nodes[i].left);
    EXPECT_EQ(a.bvh.nodes[i].first, b.bvh.nodes[i].first);
  }
  const Aabb query{Vec3(-1, -1, -1), Vec3(1.5, 1, 2)};
  std::vector<int> va, vb;
  a.bvh.query(query, [&](int i) { va.push_back(i); });
  b.bvh.query(query, [&](int i) { vb.push_back(i); });
  EXPECT_FALSE(va.empty());
  EXPECT_EQ(va, vb);
}

// Unit cube, 12 triangles written out by hand, CCW seen from outside.
TriangleMesh cube_mesh() {
  TriangleMesh m;
  for (int k = 0; k < 8; ++k) m.vertices.emplace_back(k & 1, (k >> 1) & 1, (k >> 2) & 1);
  m.triangles = {{0, 2, 3}, {0, 3, 1},   // z = 0, normal −z
                 {4, 5, 7}, {4, 7, 6},   // z = 1
                 {0, 1, 5}, {0, 5, 4},   // y = 0
                 {2, 6, 7}, {2, 7, 3},   // y = 1
                 {0, 4, 6}, {0, 6, 2},   // x = 0
                 {1, 3, 7}, {1, 7, 5}};  // x = 1
  return m;
}

TEST(TriangleMesh, IsClosed) {
  TriangleMesh cube = cube_mesh();
  EXPECT_TRUE(cube.is_closed());
  // Outward orientation (independent check of the hand-written cube): positive signed volume.
  double six_volume = 0;
  for (const std::array<int, 3>& t : cube.triangles) {
    six_volume += cube.vertices[t[0]].dot(cube.vertices[t[1]].cross(cube.vertices[t[2]]));
  }
  EXPECT_NEAR(six_volume, 6.0, 1e-12);

  TriangleMesh open = cube;
  open.triangles.pop_back();
  EXPECT_FALSE(open.is_closed());
  TriangleMesh flipped = cube;
  std::swap(flipped.triangles[3][1], flipped.triangles[3][2]);
  EXPECT_FALSE(flipped.is_closed());
  TriangleMesh all_flipped = cube;
  for (std::array<int, 3>& t : all_flipped.triangles) std::swap(t[1], t[2]);
  EXPECT_TRUE(all_flipped.is_closed());  // consistently inward is still closed
  TriangleMesh doubled = cube;
  doubled.triangles.push_back(cube.triangles[0]);
  EXPECT_FALSE(doubled.is_closed());
  TriangleMesh degenerate = cube;
  degenerate.triangles[0] = {0, 0, 3};
  EXPECT_FALSE(degenerate.is_closed());
  EXPECT_FALSE(TriangleMesh{}.is_closed());
  // Two cubes sharing no vertices are still closed.
  TriangleMesh two = cube;
  for (int k = 0; k < 8; ++k) two.vertices.push_back(cube.vertices[k] + Vec3(3, 0, 0));
  for (const std::array<int, 3>& t : cube.triangles) two.triangles.push_back({t[0] + 8, t[1] + 8, t[2] + 8});
  EXPECT_TRUE(two.is_closed());
}

}  // namespace
}  // namespace impetus
