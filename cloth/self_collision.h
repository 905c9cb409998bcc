#pragma once
// Cloth self-collision response for one step (after Bridson, Fedkiw & Anderson 2002):
//   1. proximity: vertex–triangle and edge–edge pairs closer than the thickness at x0 get
//      inelastic + friction impulses on the velocity and a soft separation of the step's
//      displacement (position only, no added velocity), Gauss–Seidel in a fixed order;
//   2. CCD passes on the path x0 → x0 + u (normal-cone culled BVH, ccd.h): every contact gets
//      an impulse that leaves the pair at least a fraction of the thickness apart at the end;
//      later passes test only pairs that touch a vertex changed by the previous pass;
//   3. rigid impact zones (Provot 1997; Bridson et al. 2002): vertices of pairs still colliding
//      are merged into zones that move as one rigid (affine, invertible) body, which cannot
//      collide with itself; zones grow until CCD finds nothing. If that does not converge, the
//      whole cloth stays at x0 for the step (which was intersection-free).
// The displacement u (x1 = x0 + u) and the end-of-step velocity v are kept separately so that
// position corrections never turn into kinetic energy.
#include <vector>

#include "cloth/ccd.h"
#include "cloth/cloth_bvh.h"
#include "cloth/cloth_params.h"

namespace impetus {

struct SelfCollisionSettings {
  double h = 1.0 / 240.0;
  double thickness = 0.005;
  double friction = 0.3;
  ConeCulling culling = ConeCulling::Tight5pt;
  int ccd_impulse_iterations = 6;
  int impact_zone_iterations = 64;
  int threads = 0;
};

struct SelfCollisionStats {
  double seconds_culling = 0;   // refits + traversals of the CCD passes
  double seconds_ccd = 0;       // primitive CCD tests
  double seconds_response = 0;  // proximity pass, impulses, impact zones
  long long triangle_pairs = 0;  // leaf pairs of the first CCD traversal (after culling)
  long long primitive_tests = 0;
  long long culled_nodes = 0;
  int proximity_contacts = 0;
  int ccd_contacts = 0;  // contacts found by the first CCD pass
  int ccd_passes = 0;
  int impact_zones = 0;
  int impact_zone_vertices = 0;
  bool frozen = false;
};

/// A primitive pair reduced to 4 vertices with weights: the relative quantity of the pair is
/// Σ w_k y[vertex_k], and n·Σ w_k x[vertex_k] > 0 means separated (n oriented that way).
struct SelfContact {
  PrimitivePair pair;
  int vertex[4] = {0, 0, 0, 0};
  double weight[4] = {0, 0, 0, 0};
  Vec3 normal = Vec3::UnitZ();
  double gap = 0;   // proximity: distance at x0; CCD: n·Σ w x0
  double t = 0;     // CCD: contact time
};

class SelfCollision {
 public:
  void build(const ClothTopology& topology, const std::vector<Vec3>& rest);

  void resolve(const std::vector<Vec3>& x0, std::vector<Vec3>& u, std::vector<Vec3>& v,
               const std::vector<double>& inv_mass, const SelfCollisionSettings& settings,
               SelfCollisionStats& stats);

  /// CCD candidates for the motion x0 → x0 + u under `mode` (tests and benchmarks).
  void ccd_candidates(const std::vector<Vec3>& x0, const std::vector<Vec3>& u, ConeCulling mode,
                      double pad, int threads, std::vector<PrimitivePair>& out,
                      long long* triangle_pairs = nullptr);
  /// CCD contacts among `pairs` (swept-box test, then primitive CCD), in the order of `pairs`.
  void ccd_contacts(const std::vector<PrimitivePair>& pairs, const std::vector<Vec3>& x0,
                    const std::vector<Vec3>& u, double eta, int threads,
                    std::vector<SelfContact>& out) const;
  /// Exact number of intersecting triangle pairs with no common vertex at positions x. Its
  /// traversal (boxes grown by thickness/2) is reused by the next proximity pass at the same x.
  int count_intersections(const std::vector<Vec3>& x, double thickness, int threads);

  ClothBvh& bvh() { return bvh_; }

 private:
  void gather(const ClothBvh::Traversal& traversal, std::vector<PrimitivePair>& out, int threads) const;
  // Static traversal at x with boxes grown by thickness/2 (cached for identical x).
  void static_traversal(const std::vector<Vec3>& x, double thickness, int threads);
  // CCD of the pairs (after a swept-box test of the two primitives); with `changed`, only pairs
  // touching a changed vertex. Contacts come out in the order of `pairs`.
  void test_pairs(const std::vector<PrimitivePair>& pairs, const std::vector<Vec3>& x0,
                  const std::vector<Vec3>& u, double eta, const std::vector<char>* changed,
                  int threads, std::vector<SelfContact>& slots, std::vector<char>& flags,
                  std::vector<SelfContact>& out) const;
  // The orphan pairs (2-ring features, bvh_.all_orphans(), listed every step) that can pass the
  // proximity box test at x: near_orphans_, ascending. Each vertex keeps a reference position,
  // renewed when it drifts more than kOrphanDrift·thickness from it (in some coordinate), and
  // each orphan pair a flag "near at the references with the box grown by that drift", updated
  // for the pairs around a renewed vertex; a pair not flagged cannot be near at x.
  static constexpr double kOrphanDrift = 1.0;
  void update_near_orphans(const std::vector<Vec3>& x, double thickness, int threads);
  bool orphan_may_be_near(const PrimitivePair& pp, double margin) const;
  void proximity_pass(const std::vector<Vec3>& x0, std::vector<Vec3>& u, std::vector<Vec3>& v,
                      const std::vector<double>& inv_mass, const SelfCollisionSettings& s,
                      SelfCollisionStats& stats);
  // One CCD detection over the current u; returns the contacts.
  void detect(const std::vector<Vec3>& x0, const std::vector<Vec3>& u,
              const std::vector<char>* changed, const SelfCollisionSettings& s, double eta,
              SelfCollisionStats& stats, bool first, std::vector<SelfContact>& out);
  void rigidify_zones(const std::vector<Vec3>& x0, std::vector<Vec3>& u, std::vector<Vec3>& v,
                      const std::vector<double>& inv_mass, std::vector<int>& zone,
                      std::vector<char>& changed, SelfCollisionStats& stats) const;

  const ClothTopology* topology_ = nullptr;
  ClothBvh bvh_;
  ClothBvh::Traversal traversal_;
  ClothBvh::Traversal static_traversal_;
  std::vector<Vec3> static_positions_;
  double static_thickness_ = -1;
  bool static_valid_ = false;
  std::vector<PrimitivePair> pairs_;
  std::vector<char> flags_;
  std::vector<SelfContact> slots_;
  // Per-step scratch kept between steps (no heap allocation in a settled step).
  std::vector<SelfContact> proximity_contacts_, ccd_contacts_;
  std::vector<char> changed_;
  // update_near_orphans: orphan pairs per vertex (CSR), references, flags, the near list.
  std::vector<int> orphan_vertex_offsets_, orphan_vertex_pairs_;
  std::vector<Vec3> orphan_reference_;
  double orphan_thickness_ = -1;
  bool orphan_list_current_ = false;
  std::vector<char> orphan_near_;
  std::vector<int> orphan_moved_, near_orphans_;
  std::vector<int> zone_;
};

}  // namespace impetus
