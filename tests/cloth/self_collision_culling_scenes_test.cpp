// Normal-cone culling loses nothing on the example cloth scenes: cloth_hang_64 and
// cloth_drape_sphere (shared benchmark scenes), scenes/cloth_flag.json and
// scenes/cloth_box_stack.json. Each scene's cloth is simulated from its file, its self-collision
// inputs (x0 and the step's displacement u, before any response) are recorded, and on every
// recorded frame each vertex–triangle and edge–edge pair that brute-force CCD over all
// primitive pairs finds colliding must be among the candidates of both culled traversals
// (Tang's 3-point cones with Provot's merge, and the paper's 5-point cones with the tight merge)
// — and the CCD of those candidates must find exactly the brute-force contacts.
//
// The reference never touches the BVH: every pair of primitives without a common vertex whose
// swept boxes (grown by η) overlap, found by a sort on x (a CCD hit within η implies that
// overlap), is tested with the primitive CCD.
//
// The cloth is stepped on its own (ClothSim, as impetus-bench does): static and kinematic
// bodies follow their scene motion, and the box stack's light dynamic boxes are held at their
// initial poses (in the World they move by millimetres). Frames are taken where the step had
// CCD contacts, plus a regular sample; the hanging cloth never touches itself, so its frames
// only check that culling keeps nothing it should not need and loses nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "cloth/ccd.h"
#include "cloth/cloth_mesh.h"
#include "cloth/cloth_sim.h"
#include "cloth/cloth_topology.h"
#include "cloth/self_collision.h"
#include "engine/cloth_from_def.h"
#include "engine/scene_loader.h"

namespace impetus {
namespace {

struct Frame {
  long long step = 0;
  std::vector<Vec3> x0, u;
};

struct Recording {
  ClothMesh mesh;
  double thickness = 0;
  long long steps = 0;
  long long contact_steps = 0;  // steps whose first CCD pass found contacts
  std::vector<Frame> frames;
};

Aabb sweep(const Vec3& x, const Vec3& u) {
  Aabb b;
  b.grow(x);
  b.grow(Vec3(x + u));
  return b;
}

std::uint64_t normalized_key(const PrimitivePair& p) {
  PrimitivePair q = p;
  if (q.kind == PrimitivePair::kEdgeEdge && q.a > q.b) std::swap(q.a, q.b);
  return q.key();
}

// Calls f(i, j) for every box a[i] that overlaps a box b[j]: b sorted by its lower x, and for
// each a[i] only the b[j] whose lower x lies in [a.min.x − (widest b in x), a.max.x] can overlap.
template <class F>
void for_overlapping(const std::vector<Aabb>& a, const std::vector<Aabb>& b, F&& f) {
  std::vector<int> order(b.size());
  for (size_t j = 0; j < b.size(); ++j) order[j] = static_cast<int>(j);
  std::sort(order.begin(), order.end(), [&](int p, int q) {
    return b[p].min.x() != b[q].min.x() ? b[p].min.x() < b[q].min.x() : p < q;
  });
  std::vector<double> lower(order.size());
  double widest = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    lower[k] = b[order[k]].min.x();
    widest = std::max(widest, b[order[k]].max.x() - b[order[k]].min.x());
  }
  for (size_t i = 0; i < a.size(); ++i) {
    auto it = std::lower_bound(lower.begin(), lower.end(), a[i].min.x() - widest);
    for (size_t k = static_cast<size_t>(it - lower.begin()); k < order.size() && lower[k] <= a[i].max.x(); ++k)
      if (a[i].overlaps(b[order[k]])) f(static_cast<int>(i), order[k]);
  }
}

// Every colliding primitive pair (no common vertex), by primitive CCD on all box-overlapping pairs.
std::set<std::uint64_t> brute_force_contacts(const ClothTopology& topo, const std::vector<Vec3>& x0,
                                             const std::vector<Vec3>& u, double eta) {
  std::set<std::uint64_t> out;
  const int nv = topo.vertex_count, nt = static_cast<int>(topo.triangles.size());
  const int ne = static_cast<int>(topo.edges.size());
  std::vector<Aabb> vertex_box(nv), tri_box(nt), edge_box(ne);
  for (int v = 0; v < nv; ++v) vertex_box[v] = sweep(x0[v], u[v]).inflated(eta);
  for (int t = 0; t < nt; ++t)
    for (int v : topo.triangles[t]) tri_box[t].grow(sweep(x0[v], u[v]));
  for (int e = 0; e < ne; ++e)
    for (int v : topo.edges[e]) edge_box[e].grow(sweep(x0[v], u[v]));
  for_overlapping(vertex_box, tri_box, [&](int v, int t) {
    const auto& tri = topo.triangles[t];
    if (tri[0] == v || tri[1] == v || tri[2] == v) return;
    if (ccd_vertex_triangle(x0[v], x0[tri[0]], x0[tri[1]], x0[tri[2]], u[v], u[tri[0]], u[tri[1]],
                            u[tri[2]], eta).hit)
      out.insert(PrimitivePair{PrimitivePair::kVertexTriangle, v, t}.key());
  });
  std::vector<Aabb> edge_box_grown(ne);
  for (int e = 0; e < ne; ++e) edge_box_grown[e] = edge_box[e].inflated(eta);
  for_overlapping(edge_box_grown, edge_box, [&](int e, int f) {
    if (f <= e) return;
    const auto& a = topo.edges[e];
    const auto& b = topo.edges[f];
    if (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1]) return;
    if (ccd_edge_edge(x0[a[0]], x0[a[1]], x0[b[0]], x0[b[1]], u[a[0]], u[a[1]], u[b[0]], u[b[1]], eta).hit)
      out.insert(PrimitivePair{PrimitivePair::kEdgeEdge, e, f}.key());
  });
  return out;
}

struct RecordOptions {
  int coarsen = 1;         // grid resolution divided by this (pins and attachments kept)
  int contact_stride = 1;  // keep every n-th step with CCD contacts ...
  int stride = 20;         // ... and every n-th step without
  int max_frames = 20;
};

// Grid vertex index after dividing the resolution by c; -1 if the vertex is not on the coarse grid.
int coarse_vertex(int v, const std::array<int, 2>& resolution, int c) {
  const int i = v % (resolution[0] + 1), j = v / (resolution[0] + 1);
  if (i % c != 0 || j % c != 0) return -1;
  return (j / c) * (resolution[0] / c + 1) + i / c;
}

// Simulates the first cloth of a scene file for its whole duration and keeps up to
// opt.max_frames self-collision inputs: steps with CCD contacts first, then a regular sample.
Recording record(const std::string& path, const RecordOptions& opt) {
  Recording rec;
  SceneLoadResult loaded = load_scene_file(path);
  EXPECT_TRUE(loaded.ok()) << loaded.error;
  if (!loaded.ok()) return rec;
  const SceneDef& scene = *loaded.scene;
  EXPECT_FALSE(scene.cloths.empty());
  if (scene.cloths.empty()) return rec;
  SceneClothDef def = scene.cloths[0];
  if (opt.coarsen > 1) {
    EXPECT_TRUE(def.is_grid);
    const int c = opt.coarsen;
    EXPECT_TRUE(def.grid_resolution[0] % c == 0 && def.grid_resolution[1] % c == 0);
    for (int& v : def.pin) v = coarse_vertex(v, def.grid_resolution, c);
    for (SceneClothAttachDef& a : def.attach) a.vertex = coarse_vertex(a.vertex, def.grid_resolution, c);
    def.grid_resolution = {def.grid_resolution[0] / c, def.grid_resolution[1] / c};
    for (int v : def.pin) EXPECT_GE(v, 0) << "pin off the coarse grid";
    for (const SceneClothAttachDef& a : def.attach) EXPECT_GE(a.vertex, 0) << "attachment off the coarse grid";
  }
  if (def.is_grid) {
    rec.mesh = make_grid_cloth(def.grid_size, def.grid_resolution, def.grid_center, def.grid_orientation);
  } else {
    rec.mesh.vertices = def.mesh_vertices;
    rec.mesh.triangles = def.mesh_triangles;
  }
  // The same parameters as World::create_cloth, self-collision on, one thread.
  SceneClothDef with_self = def;
  with_self.self_collision = true;
  const ClothParams params = cloth_params_from_def(with_self, 1);
  rec.thickness = def.thickness;
  ClothSim cloth(rec.mesh, params);
  auto pose_at = [&](const BodyDef& b, double t) {
    Pose p{b.position, b.orientation};
    if (b.motion == MotionType::Kinematic) {
      p.position += t * b.linear_velocity;
      const double w = b.angular_velocity.norm();
      if (w > 0) p.orientation = (Quat(Eigen::AngleAxisd(w * t, b.angular_velocity / w)) * b.orientation).normalized();
    }
    return p;
  };
  for (const SceneClothAttachDef& a : def.attach) cloth.attach(a.vertex, a.body, pose_at(scene.bodies[a.body], 0.0));

  const double h = scene.world.dt;
  rec.steps = scene.steps;
  std::vector<Frame> contact_frames, sampled_frames;
  Frame pending;
  cloth.before_self_collision = [&](const std::vector<Vec3>& x0, const std::vector<Vec3>& u) {
    pending.x0 = x0;
    pending.u = u;
  };
  std::vector<RigidCollider> colliders;
  std::vector<RigidImpulse> reactions;
  for (long long k = 0; k < rec.steps; ++k) {
    const double t = static_cast<double>(k + 1) * h;  // colliders are given at the end of the step
    colliders.clear();
    for (size_t b = 0; b < scene.bodies.size(); ++b) {
      const BodyDef& body = scene.bodies[b];
      RigidCollider c;
      c.body = static_cast<int>(b);
      c.shape = body.shape;
      c.pose = pose_at(body, t);
      if (body.motion == MotionType::Kinematic) {
        c.linear_velocity = body.linear_velocity;
        c.angular_velocity = body.angular_velocity;
      }
      c.center_of_mass = c.pose.position;
      c.friction = scene.world.materials[body.material].friction;
      colliders.push_back(c);
    }
    reactions.clear();
    pending.x0.clear();
    cloth.step(h, scene.world.gravity, colliders, reactions);
    EXPECT_EQ(cloth.stats().self_intersections, 0) << path << " step " << k;
    if (pending.x0.empty()) continue;
    pending.step = k;
    if (cloth.stats().ccd_contacts > 0) {
      if (rec.contact_steps++ % opt.contact_stride == 0) contact_frames.push_back(pending);
    } else if (k % opt.stride == 0) {
      sampled_frames.push_back(pending);
    }
  }
  // Contact frames first, spread evenly if there are too many; then the regular sample.
  const int keep_contacts = std::min<int>(static_cast<int>(contact_frames.size()), opt.max_frames);
  for (int i = 0; i < keep_contacts; ++i)
    rec.frames.push_back(contact_frames[static_cast<size_t>(i) * contact_frames.size() / keep_contacts]);
  const int keep_sampled = std::min<int>(static_cast<int>(sampled_frames.size()), opt.max_frames - keep_contacts);
  for (int i = 0; i < keep_sampled; ++i)
    rec.frames.push_back(sampled_frames[static_cast<size_t>(i) * sampled_frames.size() / keep_sampled]);
  return rec;
}

struct Totals {
  long long contacts = 0;
  int frames_with_contacts = 0;
  long long candidates[2] = {0, 0};
};

// The check on every recorded frame; returns what it saw.
Totals check_frames(const Recording& rec, const std::string& name) {
  Totals totals;
  const ClothTopology topo = ClothTopology::build(static_cast<int>(rec.mesh.vertices.size()), rec.mesh.triangles);
  SelfCollision sc;
  sc.build(topo, rec.mesh.vertices);
  // The contact tolerance of SelfCollision::resolve.
  const double eta = std::max(1e-3 * rec.thickness, 1e-9);
  const ConeCulling modes[2] = {ConeCulling::ProvotTang3, ConeCulling::Tight5pt};
  std::vector<PrimitivePair> candidates;
  std::vector<SelfContact> contacts;
  for (const Frame& fr : rec.frames) {
    const std::set<std::uint64_t> truth = brute_force_contacts(topo, fr.x0, fr.u, eta);
    totals.contacts += static_cast<long long>(truth.size());
    if (!truth.empty()) ++totals.frames_with_contacts;
    for (int m = 0; m < 2; ++m) {
      sc.ccd_candidates(fr.x0, fr.u, modes[m], eta, 1, candidates);
      totals.candidates[m] += static_cast<long long>(candidates.size());
      std::set<std::uint64_t> keys;
      for (const PrimitivePair& p : candidates) keys.insert(normalized_key(p));
      EXPECT_EQ(keys.size(), candidates.size()) << name << ": a pair was listed twice, step " << fr.step;
      for (std::uint64_t k : truth) {
        if (keys.count(k)) continue;
        ADD_FAILURE() << name << ": culling lost a colliding pair at step " << fr.step << ", mode "
                      << cone_culling_name(modes[m]) << ", key " << k;
        return totals;
      }
      // And the CCD of the survivors finds exactly the brute-force contacts.
      sc.ccd_contacts(candidates, fr.x0, fr.u, eta, 1, contacts);
      std::set<std::uint64_t> found;
      for (const SelfContact& c : contacts) found.insert(normalized_key(c.pair));
      EXPECT_EQ(found, truth) << name << " step " << fr.step << " mode " << cone_culling_name(modes[m]);
    }
  }
  std::printf("%s: %lld steps (%lld with CCD contacts), %zu frames checked, %d with contacts, %lld contacts; "
              "candidates provot_tang3 %lld, tight_5pt %lld\n",
              name.c_str(), rec.steps, rec.contact_steps, rec.frames.size(), totals.frames_with_contacts,
              totals.contacts, totals.candidates[0], totals.candidates[1]);
  return totals;
}

const std::string kBenchScenes = IMPETUS_BENCH_SCENES_DIR;
const std::string kSource = IMPETUS_SOURCE_DIR;

TEST(SelfCollisionCullingScenes, HangingCloth) {
  // The whole 2 s at half resolution (32 × 32 quads, the same corners pinned): the cloth swings
  // and folds at the pinned corners but never touches itself.
  const Recording rec = record(kBenchScenes + "/cloth_hang_64.json", {2, 1, 40, 12});
  ASSERT_GE(rec.frames.size(), 10u);
  check_frames(rec, "cloth_hang_64 (32 x 32)");
}

TEST(SelfCollisionCullingScenes, DrapeOverSphere) {
  // The whole 3 s at half resolution (24 × 24 quads).
  const Recording rec = record(kBenchScenes + "/cloth_drape_sphere.json", {2, 1, 60, 24});
  const Totals t = check_frames(rec, "cloth_drape_sphere (24 x 24)");
  EXPECT_GE(t.frames_with_contacts, 5);
}

TEST(SelfCollisionCullingScenes, Flag) {
  // The flag hangs from its pole and only brushes itself now and then (it used to crumple
  // against the pole it is attached to, which gave many contacts): every 10th step is checked,
  // and at least one of them must have self-contacts for the check to mean something.
  const Recording rec = record(kSource + "/scenes/cloth_flag.json", {1, 1, 10, 60});
  const Totals t = check_frames(rec, "cloth_flag");
  EXPECT_GE(t.frames_with_contacts, 1);
}

TEST(SelfCollisionCullingScenes, ClothOnBoxStack) {
  const Recording rec = record(kSource + "/scenes/cloth_box_stack.json", {1, 1, 60, 24});
  const Totals t = check_frames(rec, "cloth_box_stack");
  EXPECT_GE(t.frames_with_contacts, 5);
}

}  // namespace
}  // namespace impetus
