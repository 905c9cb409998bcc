// Cloth that does not stretch like rubber (issue 11, item 3). Every strain here is measured
// directly from the vertex positions against the rest positions (edges of the triangles), not
// with the simulator's own strain routines, and compared with closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "cloth/cloth_mesh.h"
#include "cloth/cloth_parallel.h"
#include "cloth/cloth_sim.h"
#include "cloth/strain_limit.h"
#include "cloth/cloth_topology.h"
#include "cloth_test_util.h"

namespace impetus {
namespace {

const Vec3 kGravity(0, 0, -9.81);

// Largest stretch (sign +1: length / rest length − 1) or compression (sign −1) over the
// triangle edges, from positions alone; 0 when no edge is stretched (compressed).
double measured_extreme(const std::vector<std::array<int, 3>>& triangles,
                        const std::vector<Vec3>& rest, const std::vector<Vec3>& x, double sign) {
  std::set<std::pair<int, int>> edges;
  for (const auto& t : triangles)
    for (int k = 0; k < 3; ++k) edges.insert({std::min(t[k], t[(k + 1) % 3]), std::max(t[k], t[(k + 1) % 3])});
  double worst = 0;
  for (const auto& [a, b] : edges) worst = std::max(worst, sign * ((x[a] - x[b]).norm() / (rest[a] - rest[b]).norm() - 1));
  return worst;
}

// Largest |length / rest length − 1| over the triangle edges, stretch or compression.
double measured_max_strain(const std::vector<std::array<int, 3>>& triangles,
                           const std::vector<Vec3>& rest, const std::vector<Vec3>& x) {
  return std::max(measured_extreme(triangles, rest, x, 1), measured_extreme(triangles, rest, x, -1));
}

// The benchmark material hung from the two corners of one edge (cloth_hang_64 at 48 × 48):
// the membrane alone (strain_limit 0, the engine before the limit) ends this run at 5.1% and
// stretches 14.2% at worst near the pins.
double hang_from_corners(double strain_limit, double* worst_seen) {
  ClothParams p = cloth_test::scene_params();
  p.strain_limit = strain_limit;
  const int n = 48;
  ClothMesh mesh = make_grid_cloth({2.0, 2.0}, {n, n}, Vec3(0, 0, 3), Quat::Identity());
  p.pinned = {0, n};
  ClothSim cloth(mesh, p);
  const std::vector<RigidCollider> none;
  std::vector<RigidImpulse> reactions;
  *worst_seen = 0;
  double stretch_seen = 0;
  for (int k = 0; k < 300; ++k) {
    cloth.step(1.0 / 240, kGravity, none, reactions);
    const double strain = measured_max_strain(mesh.triangles, mesh.vertices, cloth.positions());
    *worst_seen = std::max(*worst_seen, strain);
    EXPECT_EQ(cloth.stats().self_intersections, 0) << "step " << k;
    // The simulator's own figures agree with the measurement.
    const double stretch = measured_extreme(mesh.triangles, mesh.vertices, cloth.positions(), 1);
    EXPECT_NEAR(cloth.stats().max_strain, stretch, 1e-12);
    EXPECT_NEAR(cloth.stats().max_compression,
                measured_extreme(mesh.triangles, mesh.vertices, cloth.positions(), -1), 1e-12);
    stretch_seen = std::max(stretch_seen, stretch);
  }
  EXPECT_NEAR(cloth.max_edge_strain_seen(), stretch_seen, 1e-12);
  return measured_max_strain(mesh.triangles, mesh.vertices, cloth.positions());
}

TEST(StrainLimit, ClothHungFromTwoCornersStretchesAFewPerCentAtMost) {
  double seen = 0;
  const double end = hang_from_corners(ClothParams{}.strain_limit, &seen);
  EXPECT_LE(end, 0.03);
  EXPECT_LE(seen, 0.03);
}

// A strip pinned along its whole top edge hangs straight down, each row carrying the weight of
// the rows below: the vertical strain at depth y below the top of the material is
// ε(y) = ρ·g·(L − y)/k (force per width over stiffness), so the elastic extension is
// ρgL²/(2k). With the limit ε_max, the strain is min(ε(y), ε_max) and the extension
// ε_max·(L − y*) + ρg·y*²/(2k) with y* = k·ε_max/(ρg) the length of the unsaturated bottom.
double hanging_strip_extension(double strain_limit, double stiffness, double* worst) {
  ClothParams p = cloth_test::scene_params();
  p.strain_limit = strain_limit;
  p.stretch_stiffness = stiffness;
  p.self_collision = false;
  p.damping = 0.05;
  const int nx = 4, ny = 20;
  const double width = 0.2, length = 1.0;
  // Vertical: local y → world z, row ny on top.
  ClothMesh mesh = make_grid_cloth({width, length}, {nx, ny}, Vec3(0, 0, 2),
                                   Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX())));
  for (int i = 0; i <= nx; ++i) p.pinned.push_back(ny * (nx + 1) + i);
  ClothSim cloth(mesh, p);
  const std::vector<RigidCollider> none;
  std::vector<RigidImpulse> reactions;
  for (int k = 0; k < 1200; ++k) cloth.step(1.0 / 240, kGravity, none, reactions);
  *worst = measured_max_strain(mesh.triangles, mesh.vertices, cloth.positions());
  double bottom = 0;
  for (int i = 0; i <= nx; ++i) bottom += cloth.positions()[i].z();
  bottom /= nx + 1;
  const double top = mesh.vertices[ny * (nx + 1)].z();
  // Kinetic energy left: the strip is at rest.
  EXPECT_LT(cloth.kinetic_energy(), 1e-6);
  return (top - bottom) - length;
}

TEST(StrainLimit, HangingStripMatchesTheClosedFormWithAndWithoutTheLimit) {
  const double rho = 0.3, g = 9.81, length = 1.0;
  // Soft enough that the elastic strain at the top is 10%.
  const double k = rho * g * length / 0.10;
  double worst = 0;
  const double elastic = hanging_strip_extension(0.0, k, &worst);
  EXPECT_NEAR(elastic, rho * g * length * length / (2 * k), 0.003);  // 0.05 m
  EXPECT_GT(worst, 0.08);

  const double eps = 0.02;
  const double y_star = k * eps / (rho * g);  // unsaturated bottom: 0.2 m
  const double limited_expected = eps * (length - y_star) + rho * g * y_star * y_star / (2 * k);  // 0.018 m
  const double limited = hanging_strip_extension(eps, k, &worst);
  EXPECT_NEAR(limited, limited_expected, 0.002);
  EXPECT_LE(worst, eps + 0.002);
}

TEST(StrainLimit, ProjectionBringsEveryEdgeIntoItsBoundsAndKeepsPinsFixed) {
  // A chain of 10 unit edges hanging from vertex 0, stretched to 1.5 and compressed to 0.5
  // alternately: every edge ends within ±limit (up to the tolerance), the pin does not move.
  std::vector<std::array<int, 2>> edges;
  std::vector<Vec3> rest, x0, u;
  for (int i = 0; i <= 10; ++i) {
    rest.push_back(Vec3(0, 0, -i));
    if (i < 10) edges.push_back({i, i + 1});
  }
  double z = 0;
  for (int i = 0; i <= 10; ++i) {
    x0.push_back(Vec3(0, 0, z));
    u.push_back(Vec3::Zero());
    z -= (i % 2 == 0) ? 1.5 : 0.5;
  }
  std::vector<double> inv_mass(11, 1.0);
  inv_mass[0] = 0;
  StrainLimiter limiter;
  limiter.build(edges, rest, {0});
  const StrainLimitStats st = limiter.limit(x0, u, inv_mass, 0.03, 1e-6, 200);
  EXPECT_GT(st.edges_limited, 0);
  EXPECT_EQ(u[0], Vec3::Zero());
  for (int i = 0; i < 10; ++i) {
    const double len = ((x0[i + 1] + u[i + 1]) - (x0[i] + u[i])).norm();
    EXPECT_LE(std::abs(len - 1.0), 0.03 + 1e-5) << "edge " << i;
  }
}


// The limiter's sweeps written plainly, as strain_limit.h describes them: every tether, then every
// edge, tested in every sweep (no change tracking).
StrainLimitStats plain_limit(const std::vector<std::array<int, 2>>& edges, const std::vector<Vec3>& rest,
                             const std::vector<int>& anchors, const std::vector<Vec3>& x0,
                             std::vector<Vec3>& u, const std::vector<double>& inv_mass, double limit,
                             double tolerance, int max_sweeps, bool tethers) {
  StrainLimitStats stats;
  const double lo = std::max(0.0, 1.0 - limit), hi = 1.0 + limit;
  const int ne = static_cast<int>(edges.size()), nv = static_cast<int>(x0.size());
  for (int sweep = 0; sweep < max_sweeps; ++sweep) {
    if (tethers) {
      for (int a : anchors) {
        const Vec3 pa = x0[a] + u[a];
        for (int i = 0; i < nv; ++i) {
          if (!(inv_mass[i] > 0)) continue;
          const double bound = hi * (rest[i] - rest[a]).norm();
          const Vec3 d = (x0[i] + u[i]) - pa;
          const double len2 = d.squaredNorm();
          if (!(len2 > bound * bound)) continue;
          const double len = std::sqrt(len2);
          u[i] -= ((len - bound) / len) * d;
        }
      }
    }
    double worst = 0;
    int limited = 0;
    for (int k = 0; k < ne; ++k) {
      const int e = sweep % 2 == 0 ? k : ne - 1 - k;
      const int i = edges[e][0], j = edges[e][1];
      const double l0 = (rest[i] - rest[j]).norm();
      const Vec3 d = (x0[j] + u[j]) - (x0[i] + u[i]);
      const double len2 = d.squaredNorm();
      if (len2 <= hi * hi * (l0 * l0) && len2 >= lo * lo * (l0 * l0)) continue;
      const double len = std::sqrt(len2);
      const double target = std::clamp(len, lo * l0, hi * l0);
      const double w = inv_mass[i] + inv_mass[j];
      if (!(w > 0) || !(len > 0)) continue;
      const Vec3 corr = ((len - target) / (len * w)) * d;
      u[i] += inv_mass[i] * corr;
      u[j] -= inv_mass[j] * corr;
      // (A length just past its bound can round to the bound itself: moved by 0, not counted.)
      const double excess = std::abs(len - target) / l0;
      if (excess > 0) ++limited;
      worst = std::max(worst, excess);
    }
    if (sweep == 0) stats = StrainLimitStats{0, limited, limited == 0 ? 0.0 : limit + worst};
    if (limited > 0) stats.sweeps = sweep + 1;
    if (limited == 0 || worst <= tolerance) return stats;
  }
  return stats;
}

bool same_bits(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec3)) == 0;
}

TEST(StrainLimit, SkippingUnchangedConstraintsGivesTheBitsOfTestingEveryOneForAnyThreadCount) {
  // A 30 × 30 sheet (1,860 edges, 961 vertices: several chunks of the parallel first tests)
  // pinned at two corners, its end positions shaken at random (a third of the edges beyond
  // ±10%) and pulled away from the pins (tethers beyond their bounds), with unequal masses.
  const int n = 30;
  const ClothMesh mesh = make_grid_cloth({1.0, 1.0}, {n, n}, Vec3::Zero(), Quat::Identity());
  const std::vector<std::array<int, 2>> edges =
      ClothTopology::build(static_cast<int>(mesh.vertices.size()), mesh.triangles).edges;
  const int nv = static_cast<int>(mesh.vertices.size());
  const std::vector<int> anchors = {0, n};
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> shake(-0.012, 0.012), mass(0.5, 2.0);
  std::vector<Vec3> u0(nv);
  std::vector<double> inv_mass(nv);
  for (int i = 0; i < nv; ++i) {
    u0[i] = Vec3(shake(rng), shake(rng), shake(rng)) + Vec3(0, 0.08 * mesh.vertices[i].y(), -0.05);
    inv_mass[i] = mass(rng);
  }
  for (int a : anchors) {
    inv_mass[a] = 0;
    u0[a] = Vec3::Zero();
  }
  StrainLimiter limiter;
  limiter.build(edges, mesh.vertices, anchors);
  ClothParallelTuning& tuning = cloth_parallel_tuning();
  for (const bool tethers : {true, false}) {
    for (const int sweeps : {1, 2, 7, 40}) {
      std::vector<Vec3> reference = u0;
      const StrainLimitStats want = plain_limit(edges, mesh.vertices, anchors, mesh.vertices, reference,
                                                inv_mass, 0.05, 1e-4, sweeps, tethers);
      ASSERT_GT(want.edges_limited, static_cast<int>(edges.size()) / 5);
      for (const int threads : {1, 2, 3}) {
        // Every loop of more than one chunk parallel, whatever the machine's load.
        tuning.load_gate = false;
        tuning.min_items = 1;
        std::vector<Vec3> u = u0;
        const StrainLimitStats got = limiter.limit(mesh.vertices, u, inv_mass, 0.05, 1e-4, sweeps, tethers, threads);
        tuning.load_gate = true;
        tuning.min_items = kMinParallelItems;
        SCOPED_TRACE(testing::Message() << "tethers " << tethers << ", sweeps " << sweeps << ", threads " << threads);
        EXPECT_TRUE(same_bits(u, reference));
        EXPECT_EQ(got.sweeps, want.sweeps);
        EXPECT_EQ(got.edges_limited, want.edges_limited);
        EXPECT_EQ(got.worst_before, want.worst_before);
      }
    }
  }
  // The end-of-step figures: the same at any thread count as the one-thread routines'.
  std::vector<Vec3> x(nv);
  for (int i = 0; i < nv; ++i) x[i] = mesh.vertices[i] + u0[i];
  tuning.load_gate = false;
  tuning.min_items = 1;
  double strain = -1, compression = -1;
  limiter.max_strain_and_compression(x, strain, compression, 3);
  tuning.load_gate = true;
  tuning.min_items = kMinParallelItems;
  EXPECT_GT(strain, 0.1);
  EXPECT_GT(compression, 0.1);
  EXPECT_EQ(strain, limiter.max_strain(x));
  EXPECT_EQ(compression, limiter.max_compression(x));
}

}  // namespace
}  // namespace impetus
