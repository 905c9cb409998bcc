// Normal-cone culling loses nothing: on recorded frames of a cloth folding onto itself,
// every vertex–triangle / edge–edge pair that brute-force CCD finds colliding is among the
// candidates of both culled traversals (Tang's 3-point cones with Provot's merge, and the
// paper's 5-point cones with the tight merge); and the BVH count of intersecting triangle pairs
// equals the brute-force count.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "cloth/ccd.h"
#include "cloth/cloth_bvh.h"
#include "cloth/cloth_parallel.h"
#include "cloth/cloth_topology.h"
#include "cloth/self_collision.h"
#include "cloth/triangle_intersection.h"
#include "cloth_test_util.h"

namespace impetus {
namespace {

using cloth_test::random_vec;

std::uint64_t normalized_key(const PrimitivePair& p) {
  PrimitivePair q = p;
  if (q.kind == PrimitivePair::kEdgeEdge && q.a > q.b) std::swap(q.a, q.b);
  return q.key();
}

Aabb sweep(const Vec3& x, const Vec3& u) {
  Aabb b;
  b.grow(x);
  b.grow(Vec3(x + u));
  return b;
}

// Every colliding primitive pair, by testing all of them.
std::set<std::uint64_t> brute_force_contacts(const ClothTopology& topo, const std::vector<Vec3>& x0,
                                             const std::vector<Vec3>& u, double eta) {
  std::set<std::uint64_t> out;
  const int nv = topo.vertex_count, nt = static_cast<int>(topo.triangles.size());
  std::vector<Aabb> tri_box(nt), edge_box(topo.edges.size());
  for (int t = 0; t < nt; ++t)
    for (int v : topo.triangles[t]) tri_box[t].grow(sweep(x0[v], u[v]));
  for (size_t e = 0; e < topo.edges.size(); ++e)
    for (int v : topo.edges[e]) edge_box[e].grow(sweep(x0[v], u[v]));
  for (int v = 0; v < nv; ++v) {
    const Aabb vb = sweep(x0[v], u[v]).inflated(eta);
    for (int t = 0; t < nt; ++t) {
      const auto& tri = topo.triangles[t];
      if (tri[0] == v || tri[1] == v || tri[2] == v || !vb.overlaps(tri_box[t])) continue;
      if (ccd_vertex_triangle(x0[v], x0[tri[0]], x0[tri[1]], x0[tri[2]], u[v], u[tri[0]], u[tri[1]],
                              u[tri[2]], eta).hit)
        out.insert(PrimitivePair{PrimitivePair::kVertexTriangle, v, t}.key());
    }
  }
  const int ne = static_cast<int>(topo.edges.size());
  for (int e = 0; e < ne; ++e) {
    const auto& a = topo.edges[e];
    const Aabb eb = edge_box[e].inflated(eta);
    for (int f = e + 1; f < ne; ++f) {
      const auto& b = topo.edges[f];
      if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1] || !eb.overlaps(edge_box[f])) continue;
      if (ccd_edge_edge(x0[a[0]], x0[a[1]], x0[b[0]], x0[b[1]], u[a[0]], u[a[1]], u[b[0]], u[b[1]], eta).hit)
        out.insert(PrimitivePair{PrimitivePair::kEdgeEdge, e, f}.key());
    }
  }
  return out;
}

struct Frame {
  std::vector<Vec3> x0, u;
};

// A sheet folded in two (an isometric fold of radius ρ, the top layer 2ρ above the bottom one)
// dropped on the ground: the bottom layer stops on the ground and the top layer lands on it,
// so the recorded steps are full of vertex–triangle and edge–edge contacts.
std::vector<Vec3> folded(const ClothMesh& flat, double rho, double height) {
  std::vector<Vec3> x(flat.vertices.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double s = flat.vertices[i].x() + 0.2, y = flat.vertices[i].y();
    if (s >= 0) {
      x[i] = Vec3(s, y, height);
    } else if (s >= -kPi * rho) {
      const double th = -s / rho;
      x[i] = Vec3(-rho * std::sin(th), y, height + rho - rho * std::cos(th));
    } else {
      x[i] = Vec3(-s - kPi * rho, y, height + 2 * rho);
    }
  }
  return x;
}

std::vector<Frame> record_fold(int res, int steps, ClothMesh& mesh_out) {
  ClothParams p = cloth_test::scene_params();
  p.culling = ConeCulling::None;
  ClothMesh mesh = make_grid_cloth({1, 1}, {res, res}, Vec3::Zero(), Quat::Identity());
  mesh_out = mesh;
  ClothSim cloth(mesh, p);
  cloth.set_state(folded(mesh, 0.03, 0.15), std::vector<Vec3>(mesh.vertices.size(), Vec3(0, 0, -0.5)));
  EXPECT_EQ(cloth.count_self_intersections(), 0);
  std::vector<Frame> frames;
  cloth.before_self_collision = [&](const std::vector<Vec3>& x0, const std::vector<Vec3>& u) {
    frames.push_back({x0, u});
  };
  std::vector<RigidCollider> ground = {cloth_test::static_collider(0, Shape::plane(Vec3::UnitZ(), 0), Vec3::Zero())};
  std::vector<RigidImpulse> reactions;
  for (int k = 0; k < steps; ++k) {
    // A large step makes for fast motion within each step.
    cloth.step(1.0 / 100, Vec3(0, 0, -9.81), ground, reactions);
    EXPECT_EQ(cloth.stats().self_intersections, 0) << "step " << k;
  }
  return frames;
}

TEST(SelfCollisionCulling, CulledCandidatesContainEveryBruteForceContact) {
  ClothMesh mesh;
  const std::vector<Frame> frames = record_fold(12, 40, mesh);
  ClothTopology topo = ClothTopology::build(static_cast<int>(mesh.vertices.size()), mesh.triangles);
  SelfCollision sc;
  sc.build(topo, mesh.vertices);
  const double eta = 1e-3 * 0.004;
  int frames_with_contacts = 0;
  long long contacts = 0;
  long long candidates[3] = {0, 0, 0};
  for (size_t f = 0; f < frames.size(); ++f) {
    const Frame& fr = frames[f];
    const std::set<std::uint64_t> truth = brute_force_contacts(topo, fr.x0, fr.u, eta);
    if (!truth.empty()) ++frames_with_contacts;
    contacts += static_cast<long long>(truth.size());
    for (ConeCulling mode : {ConeCulling::None, ConeCulling::ProvotTang3, ConeCulling::Tight5pt}) {
      std::vector<PrimitivePair> cand;
      sc.ccd_candidates(fr.x0, fr.u, mode, eta, 1, cand);
      candidates[static_cast<int>(mode)] += static_cast<long long>(cand.size());
      std::set<std::uint64_t> keys;
      for (const PrimitivePair& p : cand) keys.insert(normalized_key(p));
      EXPECT_EQ(keys.size(), cand.size()) << "a primitive pair was listed twice, frame " << f;
      for (std::uint64_t k : truth)
        ASSERT_TRUE(keys.count(k)) << "culling lost a colliding pair: frame " << f << " mode "
                                   << cone_culling_name(mode) << " key " << k;
    }
  }
  EXPECT_GE(frames_with_contacts, 5);
  EXPECT_GE(contacts, 20);
  // Culling must actually cull.
  EXPECT_LT(candidates[1], candidates[0]);
  EXPECT_LT(candidates[2], candidates[0]);
  std::printf("frames %zu with contacts %d, contacts %lld; candidates none %lld, provot_tang3 %lld, tight_5pt %lld\n",
              frames.size(), frames_with_contacts, contacts, candidates[0], candidates[1], candidates[2]);
}

TEST(SelfCollisionCulling, FlatSheetIsCulledAtTheRootAndAFoldIsNot) {
  ClothMesh mesh = make_grid_cloth({1, 1}, {8, 8}, Vec3::Zero(), Quat(Eigen::AngleAxisd(0.3, Vec3(1, 1, 0).normalized())));
  ClothTopology topo = ClothTopology::build(static_cast<int>(mesh.vertices.size()), mesh.triangles);
  SelfCollision sc;
  sc.build(topo, mesh.vertices);
  std::vector<Vec3> u(mesh.vertices.size(), Vec3(0.01, 0.02, -0.03));
  for (ConeCulling mode : {ConeCulling::ProvotTang3, ConeCulling::Tight5pt}) {
    std::vector<PrimitivePair> cand;
    long long pairs = -1;
    sc.ccd_candidates(mesh.vertices, u, mode, 1e-6, 1, cand, &pairs);
    EXPECT_EQ(pairs, 0) << cone_culling_name(mode);
    EXPECT_TRUE(cand.empty()) << cone_culling_name(mode);
    EXPECT_TRUE(sc.bvh().is_disk(0));
  }
  // Roll the sheet into a tube (normals all around): nothing can be culled at the root.
  std::vector<Vec3> x(mesh.vertices.size());
  ClothMesh flat = make_grid_cloth({1, 1}, {8, 8}, Vec3::Zero(), Quat::Identity());
  for (size_t i = 0; i < x.size(); ++i) {
    const double a = (flat.vertices[i].x() + 0.5) * 1.9 * kPi;
    x[i] = Vec3(0.16 * std::sin(a), flat.vertices[i].y(), 0.16 * std::cos(a));
  }
  std::vector<Vec3> zero(x.size(), Vec3::Zero());
  std::vector<PrimitivePair> cand;
  long long pairs = 0;
  sc.ccd_candidates(x, zero, ConeCulling::Tight5pt, 1e-6, 1, cand, &pairs);
  EXPECT_GE(sc.bvh().cone(0).angle, 0.5 * kPi);
  EXPECT_FALSE(cand.empty());
}

TEST(SelfCollisionCulling, BvhIntersectionCountEqualsBruteForce) {
  ClothMesh mesh = make_grid_cloth({1, 1}, {10, 10}, Vec3::Zero(), Quat::Identity());
  ClothTopology topo = ClothTopology::build(static_cast<int>(mesh.vertices.size()), mesh.triangles);
  SelfCollision sc;
  sc.build(topo, mesh.vertices);
  std::mt19937_64 rng(3);
  int total = 0;
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<Vec3> x = mesh.vertices;
    for (Vec3& p : x) p += (0.05 + 0.05 * trial) * random_vec(rng);
    const int bvh = sc.count_intersections(x, 0.004, 1);
    EXPECT_EQ(bvh, count_self_intersections_brute_force(x, mesh.triangles)) << trial;
    EXPECT_EQ(bvh, sc.count_intersections(x, 0.0, 3));
    total += bvh;
  }
  EXPECT_GT(total, 0);
  EXPECT_EQ(sc.count_intersections(mesh.vertices, 0.004, 1), 0);
}

bool same_traversal(const ClothBvh::Traversal& a, const ClothBvh::Traversal& b) {
  return a.triangle_pairs == b.triangle_pairs && a.orphan_nodes == b.orphan_nodes &&
         a.culled_nodes == b.culled_nodes && a.culled_pairs == b.culled_pairs;
}

TEST(SelfCollisionCulling, ASplitTraversalListsTheSerialDescentsPairsInItsOrder) {
  // 32 × 32: 2,048 triangles, where a traversal is cut into tasks for several threads. On the
  // frames of a sheet folding onto itself, every kind of traversal (plain boxes; swept boxes
  // with cones; only the nodes of changed vertices) lists on 2 and 3 threads exactly what the
  // serial descent lists, in the same order.
  ClothMesh mesh;
  const std::vector<Frame> frames = record_fold(32, 12, mesh);
  const int nv = static_cast<int>(mesh.vertices.size());
  ClothTopology topo = ClothTopology::build(nv, mesh.triangles);
  ASSERT_GE(topo.triangles.size(), 2048u);
  ClothBvh bvh;
  bvh.build(topo, mesh.vertices);
  ClothParallelTuning& tuning = cloth_parallel_tuning();
  tuning.load_gate = false;  // the split path, whatever the machine's load
  std::mt19937_64 rng(4);
  long long pairs = 0, culled = 0, orphan_nodes = 0;
  ClothBvh::Traversal serial, split;
  for (size_t f = 0; f < frames.size(); ++f) {
    const Frame& fr = frames[f];
    bvh.refit_static(fr.x0, 0.002, 1);
    bvh.traverse(false, false, nullptr, nullptr, serial, 1);
    for (int threads : {2, 3}) {
      bvh.traverse(false, false, nullptr, nullptr, split, threads);
      EXPECT_TRUE(same_traversal(serial, split)) << "plain, frame " << f << ", " << threads << " threads";
    }
    pairs += static_cast<long long>(serial.triangle_pairs.size());
    orphan_nodes += static_cast<long long>(serial.orphan_nodes.size());
    bvh.refit_swept(fr.x0, fr.u, 1e-5, ConeCulling::Tight5pt, nullptr, 1);
    bvh.traverse(true, false, &fr.x0, &fr.u, serial, 1);
    for (int threads : {2, 3}) {
      bvh.traverse(true, false, &fr.x0, &fr.u, split, threads);
      EXPECT_TRUE(same_traversal(serial, split)) << "cones, frame " << f << ", " << threads << " threads";
    }
    culled += serial.culled_nodes + serial.culled_pairs;
    std::vector<char> changed(nv, 0);
    for (int k = 0; k < 40; ++k) changed[rng() % static_cast<unsigned>(nv)] = 1;
    bvh.refit_swept(fr.x0, fr.u, 1e-5, ConeCulling::Tight5pt, &changed, 1);
    bvh.traverse(true, true, &fr.x0, &fr.u, serial, 1);
    for (int threads : {2, 3}) {
      bvh.traverse(true, true, &fr.x0, &fr.u, split, threads);
      EXPECT_TRUE(same_traversal(serial, split)) << "changed, frame " << f << ", " << threads << " threads";
    }
  }
  tuning.load_gate = true;
  // The traversals had something to list, and culled something.
  EXPECT_GT(pairs, 0);
  EXPECT_GT(orphan_nodes, 0);
  EXPECT_GT(culled, 0);
}

TEST(SelfCollisionCulling, IncrementalSweptRefitEqualsAFullRefit) {
  // Later CCD passes refit only the nodes above vertices whose displacement changed; every
  // box and cone must then equal those of a fresh BVH refitted from scratch on the new u.
  ClothMesh mesh = make_grid_cloth({1, 1}, {12, 12}, Vec3::Zero(), Quat::Identity());
  const int nv = static_cast<int>(mesh.vertices.size());
  ClothTopology topo = ClothTopology::build(nv, mesh.triangles);
  std::mt19937_64 rng(11);
  std::vector<Vec3> x0 = mesh.vertices;
  for (Vec3& p : x0) p += 0.02 * random_vec(rng);
  std::vector<Vec3> u(nv);
  for (Vec3& d : u) d = 0.03 * random_vec(rng);
  for (ConeCulling mode : {ConeCulling::ProvotTang3, ConeCulling::Tight5pt}) {
    ClothBvh incremental;
    incremental.build(topo, mesh.vertices);
    std::vector<Vec3> un = u;
    incremental.refit_swept(x0, un, 0.001, mode, nullptr, 1);
    for (int pass = 0; pass < 3; ++pass) {
      std::vector<char> changed(nv, 0);
      for (int k = 0; k < 5; ++k) {
        const int i = static_cast<int>(rng() % static_cast<unsigned>(nv));
        un[i] += 0.05 * random_vec(rng);
        changed[i] = 1;
      }
      incremental.refit_swept(x0, un, 0.001, mode, &changed, 1);
      ClothBvh full;
      full.build(topo, mesh.vertices);
      full.refit_swept(x0, un, 0.001, mode, nullptr, 1);
      ASSERT_EQ(full.node_count(), incremental.node_count());
      for (int n = 0; n < full.node_count(); ++n) {
        EXPECT_EQ(full.box(n).min, incremental.box(n).min) << n;
        EXPECT_EQ(full.box(n).max, incremental.box(n).max) << n;
        EXPECT_EQ(full.cone(n).axis, incremental.cone(n).axis) << n;
        EXPECT_EQ(full.cone(n).angle, incremental.cone(n).angle) << n;
      }
    }
  }
}

}  // namespace
}  // namespace impetus
