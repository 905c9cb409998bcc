#pragma once
// The cloth's mechanics: lumped masses from the areal density, Baraff–Witkin stretch and shear
// conditions on each triangle (with energy density × rest area, so that a stiffness means the
// same at any resolution), isometric bending (a constant Hessian), Rayleigh damping, and the
// assembly of the linearised backward-Euler system (Baraff & Witkin 1998, eq. 18):
//
//   (M + h·D + h²·K) Δv = h·(f(x0, v0) − h·K·v0),   K = −∂f/∂x,  D = −∂f/∂v.
//
// Stretch of the warp (u) and weft (v) directions: C = |w| − 1 per direction, w = ∂x/∂u the
// columns of the deformation gradient over the rest (u, v) chart of the triangle; energy
// ½·k·a·C² with a the rest area. Shear: C = w_u·w_v, energy ½·k_shear·a·C². K keeps the
// positive semi-definite part (Gauss–Newton for shear; the lateral stretch term only in
// tension), so the system matrix is symmetric positive definite and CG applies.
//
// Bending (Bergou et al. 2006, isometric bending): E = ½·k_b·Σ_v |(L x)_v|² / A_v with L the
// cotangent Laplacian of the rest mesh and A_v the mixed Voronoi vertex area, i.e. the discrete
// ½·k_b·∫(κ1 + κ2)² dA; quadratic in x with Hessian k_b·Q, Q = Lᵀ A⁻¹ L (interior vertices;
// the rest mesh is taken as flat or nearly so, as the model assumes).
#include <array>
#include <vector>

#include "cloth/block_sparse.h"
#include "cloth/cloth_params.h"
#include "cloth/cloth_topology.h"
#include "collision/base/math.h"

namespace impetus {

class ClothModel {
 public:
  void build(const ClothTopology& topology, const std::vector<Vec3>& rest, const ClothParams& params);

  const std::vector<double>& masses() const { return mass_; }
  const ScalarCsrMatrix& bending_hessian() const { return bend_q_; }  // Q (times k_b = Hessian)

  /// Fills A's blocks (pattern set by the caller from the topology 1-ring) and rhs for a
  /// step of size h from (x, v); gravity enters as m·g. The system matrix is
  /// A + bending_coefficient(h)·(R ⊗ I₃), R = bending_remainder(): A includes the bending
  /// term's entries on its own pattern, and only the rest of Q's wider (2-ring) stencil, R, is
  /// left to the solver to apply matrix-free. Folding them in halves the scalar entries a
  /// product visits per row (12.5 → 5.7 on a grid) and gives the incomplete factorisation the
  /// 1-ring bending part without merging it.
  void assemble(const std::vector<Vec3>& x, const std::vector<Vec3>& v, double h,
                const Vec3& gravity, int threads, BlockCsrMatrix& A, std::vector<Vec3>& rhs);
  /// Coefficient of Q (and R) in the system matrix: k_b·(h·damping + h²).
  double bending_coefficient(double h) const;
  /// The entries of Q outside the pattern of the A last given to assemble() (empty before).
  const ScalarCsrMatrix& bending_remainder() const { return bend_r_; }

  /// Internal (elastic + damping) forces at (x, v), without gravity: element_system's forces
  /// plus bending. For tests.
  void internal_forces(const std::vector<Vec3>& x, const std::vector<Vec3>& v, std::vector<Vec3>& f) const;
  /// Elastic energy: stretch + shear + bending.
  double elastic_energy(const std::vector<Vec3>& x) const;
  double bending_energy(const std::vector<Vec3>& x) const;

  /// What assemble() adds for one triangle (the step's kernel, element_system below).
  struct ElementSystem {
    std::array<Mat3, 9> blocks;   // (i, j) at 3i + j: h·D_ij + h²·K_ij
    std::array<Vec3, 3> rhs;      // h·(f_i − h·Σ_j K_ij v_j)
    std::array<Vec3, 3> forces;   // f_i: stretch and shear forces with their damping
  };
  /// Triangle t's element system at (x, v) for a step h; for tests (with h = 1 and no damping,
  /// `blocks` is the element stiffness K).
  ElementSystem element_system(int t, const std::vector<Vec3>& x, const std::vector<Vec3>& v,
                               double h) const;

 private:
  struct Element {
    std::array<int, 3> v;
    std::array<double, 3> cu, cv;  // ∂w_u/∂x_i, ∂w_v/∂x_i (scalars × I)
    double area;
  };
  // The one Baraff–Witkin element kernel: the element's blocks of h·D + h²·K, its right-hand
  // side h·(f − h·K·v) and, when `forces` is given, its forces f (elastic + damping).
  void element_system(const Element& e, const std::vector<Vec3>& x, const std::vector<Vec3>& v,
                      double h, std::array<Mat3, 9>& out, std::array<Vec3, 3>& r,
                      std::array<Vec3, 3>* forces = nullptr) const;

  ClothParams params_;
  std::vector<Element> elements_;
  std::vector<double> area_;
  std::vector<double> mass_;
  ScalarCsrMatrix bend_q_;
  std::vector<Vec3> bend_y_;  // assemble's x0 + (damping + h)·v0, kept between steps
  // Assembly: for block slot k of A, the element blocks (element*9 + local) summed into it.
  std::vector<int> slot_offsets_, slot_sources_;
  // Bending split on A's pattern: per entry of Q, its block slot in A or -1; R = the rest.
  std::vector<int> bend_slot_;
  ScalarCsrMatrix bend_r_;
  std::vector<int> vertex_offsets_, vertex_sources_;  // element*3 + local, per vertex
  std::vector<std::array<Mat3, 9>> element_blocks_;
  std::vector<std::array<Vec3, 3>> element_rhs_;
  bool pattern_ready_ = false;
  const BlockCsrMatrix* pattern_owner_ = nullptr;
};

}  // namespace impetus
