#pragma once
// Modified preconditioned conjugate gradients (Baraff & Witkin 1998, §5.3) for the cloth's
// backward-Euler system A Δv = b, A = blocks + c_b·(Q ⊗ I₃). Constrained vertices (pinned or
// attached) get a prescribed Δv = z and are filtered out of the search directions, so the
// iteration never moves them. Preconditioner: the block incomplete factorisation
// (block_ichol.h), or block Jacobi (inverse 3×3 diagonal blocks) for a solve whose
// factorisation fails its round-off check (solve()). On the hanging cloth the
// incomplete factorisation needs about a third of block Jacobi's iterations for the same
// tolerance (64 × 64: 18; 120 × 120: 29 against 88), at about twice the cost per iteration.
#include <vector>

#include "cloth/block_ichol.h"
#include "cloth/block_sparse.h"
#include "collision/base/cpu_features.h"

namespace impetus {

struct PcgResult {
  int iterations = 0;
  double relative_residual = 0;  // sqrt(δ / δ0) at exit, preconditioned filtered norm
};

/// Cloths of this many vertices or more solve on a thread team (one parallel region per solve,
/// a few barriers per iteration); smaller ones on the calling thread.
inline constexpr int kMinParallelSolveRows = 1024;

class ImplicitSolver {
 public:
  /// min_split_rows: from how many rows the incomplete factorisation is split for two threads
  /// (block_ichol.h; tests lower it to split small systems).
  explicit ImplicitSolver(int min_split_rows = kIcholMinSplitRows) : ichol_(min_split_rows) {}

  /// Solves (blocks + bending_coefficient·Q) dv = b with dv_i = z_i where constrained[i].
  /// `dv` holds the initial guess on entry (its constrained entries are replaced by z).
  /// Stops when rᵀP⁻¹r ≤ max(tolerance²·δ0, absolute_floor) (δ0 = bᵀP⁻¹b, filtered) or after
  /// max_iterations. The incomplete factorisation sees `blocks` only: Q should hold just the
  /// bending entries outside the blocks' pattern (ClothModel::bending_remainder()), the others
  /// being folded into the blocks (ClothModel::assemble), else they are left out of it.
  PcgResult solve(const BlockCsrMatrix& blocks, const ScalarCsrMatrix& bending,
                  double bending_coefficient, const std::vector<Vec3>& b,
                  const std::vector<char>& constrained, const std::vector<Vec3>& z,
                  double tolerance, double absolute_floor, int max_iterations, int threads,
                  std::vector<Vec3>& dv);
  /// y = (blocks + c·Q) x, with the solver's own row products.
  void apply(const BlockCsrMatrix& blocks, const ScalarCsrMatrix& bending, double c,
             const std::vector<Vec3>& x, std::vector<Vec3>& y, int threads) const;

  /// Whether the PCG's system product, its costliest loop, runs the AVX2 kernel
  /// (cloth/block3_avx2.h): by default where the CPU has AVX2 (collision/base/cpu_features.h).
  /// Both kernels give the same bits; tests turn it off to compare them. Turning it on where the
  /// CPU lacks AVX2 leaves it off.
  void set_avx2(bool on) { avx2_ = on && cpu_has_avx2(); }

 private:
  struct System;
  // The whole solve on one team (every thread runs it; each keeps its own copy of the scalars,
  // computed alike from the shared partial sums).
  template <class Team>
  PcgResult iterate(Team& team, const System& system, std::vector<Vec3>& dv);
  // z = P⁻¹ r with the incomplete factorisation or block Jacobi; returns rᵀz.
  template <class Team>
  double precondition(Team& team, bool ichol, const std::vector<char>& constrained,
                      const std::vector<Vec3>& r, std::vector<Vec3>& z);
  // Σ partial_ in chunk order.
  double sum_chunks() const;

  std::vector<Mat3> inv_diag_;
  std::vector<Vec3> r_, c_, q_, s_;
  std::vector<double> partial_;  // per-chunk partial sums of a dot product
  BlockIncompleteCholesky ichol_;
  bool avx2_ = cpu_has_avx2();
};

}  // namespace impetus
