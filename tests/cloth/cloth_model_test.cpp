// The cloth model against closed forms: stretch and shear energies of homogeneous
// deformations at two resolutions (resolution independence), bending energy of a sheet rolled
// onto a cylinder, rigid-motion invariance, forces = −∇E and the stiffness = −∂f/∂x by finite
// differences, lumped masses. Forces and stiffness come from the step's element kernel
// (ClothModel::element_system), whose whole output (h·D + h²·K and h·(f − h·K·v)) is checked
// against finite differences too.
#include <gtest/gtest.h>

#include "cloth/cloth_model.h"
#include "cloth/cloth_topology.h"
#include "cloth_test_util.h"

namespace impetus {
namespace {

using cloth_test::random_vec;

struct Built {
  ClothMesh mesh;
  ClothTopology topo;
  ClothModel model;
};

Built build(int res, const ClothParams& p, double size = 1.0) {
  Built b;
  b.mesh = make_grid_cloth({size, size}, {res, res}, Vec3::Zero(), Quat::Identity());
  b.topo = ClothTopology::build(static_cast<int>(b.mesh.vertices.size()), b.mesh.triangles);
  b.model.build(b.topo, b.mesh.vertices, p);
  return b;
}

ClothParams params(double ks, double ksh, double kb) {
  ClothParams p;
  p.stretch_stiffness = ks;
  p.shear_stiffness = ksh;
  p.bend_stiffness = kb;
  p.damping = 0;
  p.areal_density = 0.3;
  return p;
}

TEST(ClothModel, MassesSumToArealDensityTimesArea) {
  Built b = build(7, params(1, 1, 0), 2.0);
  double m = 0;
  for (double mi : b.model.masses()) m += mi;
  EXPECT_NEAR(m, 0.3 * 4.0, 1e-12);
}

TEST(ClothModel, HomogeneousStretchAndShearMatchClosedFormAtAnyResolution) {
  const double ks = 5000, ksh = 500;
  for (int res : {3, 16}) {
    Built b = build(res, params(ks, ksh, 0));
    // Stretch by (s1, s2) along the warp (x) and weft (y): E = ½ k A ((s1−1)² + (s2−1)²).
    const double s1 = 1.05, s2 = 0.97;
    std::vector<Vec3> x = b.mesh.vertices;
    for (Vec3& p : x) p = Vec3(s1 * p.x(), s2 * p.y(), p.z());
    EXPECT_NEAR(b.model.elastic_energy(x), 0.5 * ks * ((s1 - 1) * (s1 - 1) + (s2 - 1) * (s2 - 1)), 1e-9) << res;
    // Simple shear x += γ y: w_u = (1,0,0), w_v = (γ,1,0).
    const double g = 0.2;
    x = b.mesh.vertices;
    for (Vec3& p : x) p = Vec3(p.x() + g * p.y(), p.y(), p.z());
    const double cv = std::sqrt(1 + g * g) - 1;
    EXPECT_NEAR(b.model.elastic_energy(x), 0.5 * (ks * cv * cv + ksh * g * g), 1e-9) << res;
  }
}

TEST(ClothModel, RigidMotionsCostNothing) {
  Built b = build(8, params(5000, 500, 0.01));
  const Quat q = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  std::vector<Vec3> x = b.mesh.vertices;
  for (Vec3& p : x) p = q * p + Vec3(0.3, -2, 5);
  EXPECT_LT(b.model.elastic_energy(x), 1e-18);
  std::vector<Vec3> f, v(x.size(), Vec3(1, 2, 3));
  b.model.internal_forces(x, v, f);
  for (const Vec3& fi : f) EXPECT_LT(fi.norm(), 1e-9);
}

TEST(ClothModel, BendingOfACylinderMatchesTheContinuum) {
  // Roll the unit sheet (x ∈ [−½, ½]) onto a cylinder of radius R about the y axis: an
  // isometry with κ1 = 1/R, κ2 = 0, so E = ½ k_b ∫ (1/R)² dA over the interior vertex areas.
  const double kb = 0.01, R = 0.4;
  double energies[2];
  int idx = 0;
  for (int res : {16, 32}) {
    Built b = build(res, params(0, 0, kb));
    std::vector<Vec3> x = b.mesh.vertices;
    for (Vec3& p : x) p = Vec3(R * std::sin(p.x() / R), p.y(), R * (1 - std::cos(p.x() / R)));
    const double h = 1.0 / res;
    const double interior_area = (1 - h) * (1 - h);  // Voronoi areas of the interior vertices
    const double expected = 0.5 * kb * interior_area / (R * R);
    const double e = b.model.bending_energy(x);
    EXPECT_NEAR(e / expected, 1.0, 0.01) << res;
    energies[idx++] = e / interior_area;
    EXPECT_LT(b.model.bending_energy(b.mesh.vertices), 1e-20);
  }
  EXPECT_NEAR(energies[0] / energies[1], 1.0, 0.01);  // same energy density at both resolutions
}

TEST(ClothModel, ForcesAreMinusTheEnergyGradient) {
  Built b = build(4, params(5000, 500, 0.05));
  std::mt19937_64 rng(1);
  std::vector<Vec3> x = b.mesh.vertices;
  for (Vec3& p : x) p += 0.02 * random_vec(rng);
  std::vector<Vec3> f, v(x.size(), Vec3::Zero());
  b.model.internal_forces(x, v, f);
  const double eps = 1e-6;
  for (size_t i = 0; i < x.size(); ++i) {
    for (int k = 0; k < 3; ++k) {
      std::vector<Vec3> xp = x, xm = x;
      xp[i][k] += eps;
      xm[i][k] -= eps;
      const double grad = (b.model.elastic_energy(xp) - b.model.elastic_energy(xm)) / (2 * eps);
      EXPECT_NEAR(f[i][k], -grad, 1e-5 * (1 + std::abs(grad))) << i << "," << k;
    }
  }
}

TEST(ClothModel, StretchStiffnessIsTheForceJacobianInTension) {
  // Stretch only (no shear), every direction in tension: the PSD approximation is exact.
  Built b = build(3, params(5000, 0, 0));
  std::mt19937_64 rng(2);
  std::vector<Vec3> x = b.mesh.vertices;
  for (Vec3& p : x) p = Vec3(1.1 * p.x(), 1.08 * p.y(), 0) + 0.003 * random_vec(rng);
  const int t = 5;
  const auto& tri = b.mesh.triangles[t];
  // The step's kernel at h = 1 without damping: its blocks are K.
  const std::array<Mat3, 9> K = b.model.element_system(t, x, std::vector<Vec3>(x.size(), Vec3::Zero()), 1.0).blocks;
  // Finite differences of this element's forces only (other elements are not involved in K_e).
  ClothMesh single;
  single.vertices = {x[tri[0]], x[tri[1]], x[tri[2]]};
  single.triangles = {{0, 1, 2}};
  ClothTopology topo1 = ClothTopology::build(3, single.triangles);
  ClothModel m1;
  std::vector<Vec3> rest1 = {b.mesh.vertices[tri[0]], b.mesh.vertices[tri[1]], b.mesh.vertices[tri[2]]};
  ClothParams p = params(5000, 0, 0);
  p.warp_direction = Vec3::UnitX();
  m1.build(topo1, rest1, p);
  const double eps = 1e-7;
  std::vector<Vec3> v(3, Vec3::Zero()), fp, fm;
  for (int j = 0; j < 3; ++j) {
    for (int k = 0; k < 3; ++k) {
      std::vector<Vec3> xp = single.vertices, xm = single.vertices;
      xp[j][k] += eps;
      xm[j][k] -= eps;
      m1.internal_forces(xp, v, fp);
      m1.internal_forces(xm, v, fm);
      for (int i = 0; i < 3; ++i) {
        const Vec3 dfdx = (fp[i] - fm[i]) / (2 * eps);
        for (int r = 0; r < 3; ++r) EXPECT_NEAR(K[3 * i + j](r, k), -dfdx[r], 1e-3 * 5000) << i << j << k << r;
      }
    }
  }
}

// One triangle, deformed by x ↦ R·diag(s1, s2, 1)·x + c with s1, s2 > 1 (both directions in
// tension, no shear strain): there the kept PSD parts are the exact Jacobians, so the step's
// element system must equal h·D + h²·K and h·(f − h·K·v) with K = −∂f/∂x and D = −∂f/∂v taken by
// finite differences of the kernel's own forces, and those forces (at v = 0) must be −∇E.
TEST(ClothModel, ElementSystemIsTheStepsLinearisationByFiniteDifferences) {
  ClothParams p = params(5000, 800, 0);
  p.damping = 0.02;
  p.warp_direction = Vec3::UnitX();
  const std::vector<Vec3> rest = {Vec3(0, 0, 0), Vec3(0.1, 0, 0), Vec3(0.03, 0.08, 0)};
  ClothMesh single;
  single.vertices = rest;
  single.triangles = {{0, 1, 2}};
  const ClothTopology topo = ClothTopology::build(3, single.triangles);
  ClothModel m;
  m.build(topo, rest, p);
  const Quat R(Eigen::AngleAxisd(0.6, Vec3(1, -2, 0.5).normalized()));
  std::vector<Vec3> x(3);
  for (int i = 0; i < 3; ++i) x[i] = R * Vec3(1.1 * rest[i].x(), 1.05 * rest[i].y(), 0) + Vec3(0.2, 0.1, 1);
  std::mt19937_64 rng(3);
  std::vector<Vec3> v(3), zero(3, Vec3::Zero());
  for (Vec3& vi : v) vi = random_vec(rng);
  const double h = 1.0 / 120;
  const ClothModel::ElementSystem sys = m.element_system(0, x, v, h);
  auto forces = [&](const std::vector<Vec3>& xs, const std::vector<Vec3>& vs) {
    return m.element_system(0, xs, vs, h).forces;
  };
  // K = −∂f/∂x at v = 0 (the damping force's x-dependence is not part of the model), D = −∂f/∂v
  // (f is linear in v: a large step is exact).
  std::array<Mat3, 9> K, D;
  const double ex = 1e-7, ev = 1e-2;
  for (int j = 0; j < 3; ++j) {
    for (int k = 0; k < 3; ++k) {
      std::vector<Vec3> xp = x, xm = x, vp = v, vm = v;
      xp[j][k] += ex;
      xm[j][k] -= ex;
      vp[j][k] += ev;
      vm[j][k] -= ev;
      const auto fxp = forces(xp, zero), fxm = forces(xm, zero);
      const auto fvp = forces(x, vp), fvm = forces(x, vm);
      for (int i = 0; i < 3; ++i) {
        K[3 * i + j].col(k) = -(fxp[i] - fxm[i]) / (2 * ex);
        D[3 * i + j].col(k) = -(fvp[i] - fvm[i]) / (2 * ev);
      }
    }
  }
  double scale = 0;
  for (const Mat3& b : K) scale = std::max(scale, b.norm());
  for (int b = 0; b < 9; ++b) {
    const Mat3 expected = h * D[b] + h * h * K[b];
    EXPECT_LT((sys.blocks[b] - expected).norm(), 1e-6 * h * h * scale) << "block " << b;
    // Both Jacobians symmetric (K_ji = K_ijᵀ), as the CG solve needs.
    const int bt = (b % 3) * 3 + b / 3;
    EXPECT_LT((K[bt] - K[b].transpose()).norm(), 1e-6 * scale) << "K symmetric, block " << b;
    EXPECT_LT((D[bt] - D[b].transpose()).norm(), 1e-9 * scale) << "D symmetric, block " << b;
  }
  for (int i = 0; i < 3; ++i) {
    Vec3 Kv = Vec3::Zero();
    for (int j = 0; j < 3; ++j) Kv += K[3 * i + j] * v[j];
    const Vec3 expected = h * (sys.forces[i] - h * Kv);
    EXPECT_LT((sys.rhs[i] - expected).norm(), 1e-6 * h * h * scale * v[i].norm() + 1e-12) << i;
  }
  // Forces at v = 0 are −∇E; with v they add exactly −D·v.
  const auto f0 = forces(x, zero);
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 3; ++k) {
      std::vector<Vec3> xp = x, xm = x;
      xp[i][k] += ex;
      xm[i][k] -= ex;
      const double grad = (m.elastic_energy(xp) - m.elastic_energy(xm)) / (2 * ex);
      EXPECT_NEAR(f0[i][k], -grad, 1e-6 * (1 + std::abs(grad))) << i << "," << k;
    }
    Vec3 Dv = Vec3::Zero();
    for (int j = 0; j < 3; ++j) Dv += D[3 * i + j] * v[j];
    EXPECT_LT((sys.forces[i] - (f0[i] - Dv)).norm(), 1e-9 * (1 + f0[i].norm())) << i;
  }
}

}  // namespace
}  // namespace impetus
