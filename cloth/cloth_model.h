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
#include "cloth/cloth_element.h"
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

  /// What assemble() adds for one triangle (the step's kernel, cloth_element.h).
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
  MembraneStiffness membrane() const;

  ClothParams params_;
  std::vector<ClothElement> elements_;
  std::vector<double> area_;
  std::vector<double> mass_;
  ScalarCsrMatrix bend_q_;
  std::vector<Vec3> bend_y_;  // assemble's x0 + (damping + h)·v0, kept between steps
  // Assembly, per block slot (i, j) of A with j ≥ i ("upper"): its index in A, the index of
  // its mirror (j, i) (-1 on the diagonal), the vertex i on the diagonal (else -1), Q_ij (0 if
  // Q has no such entry), and the element-local blocks (element*9 + 3a + b) summed into it.
  // A block (j, i) below the diagonal is the transpose of (i, j): the element blocks are
  // (a, b) = (b, a)ᵀ and Q is symmetric, so A is symmetric (off its diagonal blocks, exactly).
  std::vector<int> upper_slot_, lower_slot_, upper_vertex_;
  std::vector<double> upper_bending_;
  std::vector<int> slot_offsets_, slot_sources_;
  // The entries of Q off A's pattern.
  ScalarCsrMatrix bend_r_;
  std::vector<int> vertex_offsets_, vertex_sources_;  // element*3 + local, per vertex
  std::vector<ElementStiffness> element_stiffness_;
  std::vector<std::array<Vec3, 3>> element_rhs_;
  bool pattern_ready_ = false;
  const BlockCsrMatrix* pattern_owner_ = nullptr;
};

}  // namespace impetus
