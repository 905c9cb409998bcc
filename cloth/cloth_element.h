#pragma once
// The Baraff–Witkin membrane kernel of one cloth triangle (Baraff & Witkin 1998, §4.2–4.3 and
// eq. 18), in the compact form the assembly uses.
//
// Stretch along u and v: C = |w| − 1, ∂C/∂x_i = c_i ŵ, f_i = −k·a·(C + β·Ċ)·c_i ŵ; the PSD
// part of −∂f_i/∂x_j is k·a·c_i c_j (P + e (I − P)), P = ŵŵᵀ, e = max(C, 0)/|w| (the lateral
// term only in tension), and −∂f_i/∂v_j = β·k·a·c_i c_j P. Shear: C = w_u·w_v,
// ∂C/∂x_i = g_i = cu_i w_v + cv_i w_u, f_i = −k·a·(C + β·Ċ)·g_i; K keeps the Gauss–Newton part
// k·a·g_i g_jᵀ, and D = β·k·a·g_i g_jᵀ.
//
// So every block (a, b) of the element's h·D + h²·K is
//   cu_a cu_b (α_u P_u + β_u I) + cv_a cv_b (α_v P_v + β_v I) + s·g_a g_bᵀ,
// with α = k·a·(h·β + h²·(1 − e)), β = k·a·h²·e per stretch direction and s = k_shear·a·(h·β + h²):
// 17 numbers per element instead of 9 blocks (81). The assembly builds each block of the
// system matrix straight from them (ClothModel::assemble), without writing the element blocks
// to memory and reading them back.
#include <array>
#include <vector>

#include "collision/base/math.h"

namespace impetus {

/// A triangle's rest data: ∂w_u/∂x_i = cu_i·I, ∂w_v/∂x_i = cv_i·I, rest area a.
struct ClothElement {
  std::array<int, 3> v;
  std::array<double, 3> cu, cv;
  double area;
};

/// The element's h·D + h²·K in the compact form above.
struct ElementStiffness {
  Vec3 wu_hat = Vec3::Zero(), wv_hat = Vec3::Zero();  // ŵ_u, ŵ_v
  double alpha_u = 0, beta_u = 0, alpha_v = 0, beta_v = 0;
  double shear = 0;  // s
  std::array<Vec3, 3> g = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};

  /// out += block (a, b) of the element.
  void add_block(const ClothElement& e, int a, int b, Mat3& out) const {
    BlockSum sum;
    add_block(e, a, b, sum);
    out += sum.matrix();
  }

  /// A 3×3 sum in named scalars, so that the assembly keeps it in registers (a Mat3 written
  /// through its data pointer stayed in memory, and the slot loop spent most of its time on
  /// the reloads).
  struct BlockSum {
    double m00 = 0, m10 = 0, m20 = 0, m01 = 0, m11 = 0, m21 = 0, m02 = 0, m12 = 0, m22 = 0;
    Mat3 matrix() const {
      Mat3 m;
      store(m);
      return m;
    }
    void store(Mat3& m) const {
      double* o = m.data();
      o[0] = m00, o[1] = m10, o[2] = m20, o[3] = m01, o[4] = m11, o[5] = m21, o[6] = m02, o[7] = m12, o[8] = m22;
    }
    void store_transpose(Mat3& m) const {
      double* o = m.data();
      o[0] = m00, o[1] = m01, o[2] = m02, o[3] = m10, o[4] = m11, o[5] = m12, o[6] = m20, o[7] = m21, o[8] = m22;
    }
  };
  /// sum += block (a, b) of the element. (Inline: the assembly calls it for every element
  /// block it sums.)
  void add_block(const ClothElement& e, int a, int b, BlockSum& s) const {
    const double su = e.cu[a] * e.cu[b], sv = e.cv[a] * e.cv[b];
    const double au = su * alpha_u, av = sv * alpha_v;
    const double pu0 = au * wu_hat[0], pu1 = au * wu_hat[1], pu2 = au * wu_hat[2];
    const double pv0 = av * wv_hat[0], pv1 = av * wv_hat[1], pv2 = av * wv_hat[2];
    const Vec3& ga = g[a];
    const Vec3& gb = g[b];
    const double pg0 = shear * ga[0], pg1 = shear * ga[1], pg2 = shear * ga[2];
    const double diagonal = su * beta_u + sv * beta_v;
    s.m00 += pu0 * wu_hat[0] + pv0 * wv_hat[0] + pg0 * gb[0] + diagonal;
    s.m10 += pu1 * wu_hat[0] + pv1 * wv_hat[0] + pg1 * gb[0];
    s.m20 += pu2 * wu_hat[0] + pv2 * wv_hat[0] + pg2 * gb[0];
    s.m01 += pu0 * wu_hat[1] + pv0 * wv_hat[1] + pg0 * gb[1];
    s.m11 += pu1 * wu_hat[1] + pv1 * wv_hat[1] + pg1 * gb[1] + diagonal;
    s.m21 += pu2 * wu_hat[1] + pv2 * wv_hat[1] + pg2 * gb[1];
    s.m02 += pu0 * wu_hat[2] + pv0 * wv_hat[2] + pg0 * gb[2];
    s.m12 += pu1 * wu_hat[2] + pv1 * wv_hat[2] + pg1 * gb[2];
    s.m22 += pu2 * wu_hat[2] + pv2 * wv_hat[2] + pg2 * gb[2] + diagonal;
  }
};

struct MembraneStiffness {
  double stretch = 0;  // k (N/m)
  double shear = 0;    // k_shear (N/m)
  double damping = 0;  // β (s)
};

/// Triangle e at positions x and velocities v for a step h: its stiffness (h·D + h²·K), its
/// right-hand side r_i = h·(f_i − h·Σ_j K_ij v_j) and, when `forces` is given, f_i (elastic +
/// damping forces).
void membrane_element(const ClothElement& e, const MembraneStiffness& k, const std::vector<Vec3>& x,
                      const std::vector<Vec3>& v, double h, ElementStiffness& stiffness,
                      std::array<Vec3, 3>& rhs, std::array<Vec3, 3>* forces = nullptr);

}  // namespace impetus
