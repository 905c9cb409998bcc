// Cloth that does not stretch like rubber (issue 11, item 3). Every strain here is measured
// directly from the vertex positions against the rest positions (edges of the triangles), not
// with the simulator's own strain routines, and compared with closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "cloth/cloth_mesh.h"
#include "cloth/cloth_sim.h"
#include "cloth/strain_limit.h"
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

}  // namespace
}  // namespace impetus
