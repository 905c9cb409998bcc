#include "cloth/block_ichol.h"

#include "cloth/block3.h"

namespace impetus {

void BlockIncompleteCholesky::factor(const BlockCsrMatrix& A, const std::vector<char>& constrained) {
  pattern_ = &A;
  constrained_ = constrained;
  const int n = A.rows;
  factor_.resize(A.blocks.size());
  compensation_.assign(n, 0.0);
  for (int i = 0; i < n; ++i) {
    const int begin = A.row_offsets[i], end = A.row_offsets[i + 1], d = A.diagonal[i];
    if (constrained[i]) {
      for (int p = begin; p < end; ++p) factor_[p].setZero();
      factor_[d].setIdentity();
      continue;
    }
    // Working row: a_ij, couplings to constrained vertices dropped.
    for (int p = begin; p < end; ++p) {
      const int j = A.cols[p];
      if (j != i && constrained[j]) {
        factor_[p].setZero();
      } else {
        factor_[p] = A.blocks[p];
      }
    }
    for (int a = 0; a < 3; ++a) factor_[d](a, a) += compensation_[i];
    // IKJ elimination: for each k < i in the row, L_ik = W_ik U_kk⁻¹, then W_ij −= L_ik U_kj
    // for the j > k present in both rows (zero fill). A dropped fill block F = L_ik U_kj at
    // (i, j), j > i, adds ‖F‖_F·I to the diagonal blocks i and j; its mirror at (j, i) is the
    // fill L_jk U_ki dropped in row j with the same k (= Fᵀ for a symmetric matrix), so each
    // pair is compensated once, here.
    double diagonal_compensation = 0;
    for (int p = begin; p < d; ++p) {
      const int k = A.cols[p];
      if (constrained[k]) continue;
      Mat3 l;
      block3::product(factor_[p], factor_[A.diagonal[k]], l);
      factor_[p] = l;
      int pi = p + 1;
      const int k_end = A.row_offsets[k + 1];
      for (int pk = A.diagonal[k] + 1; pk < k_end; ++pk) {
        const int jk = A.cols[pk];
        while (pi < end && A.cols[pi] < jk) ++pi;
        if (pi < end && A.cols[pi] == jk) {
          block3::subtract_product(l, factor_[pk], factor_[pi]);
        } else if (jk > i) {
          const double norm = block3::product_norm(l, factor_[pk]);
          diagonal_compensation += norm;
          compensation_[jk] += norm;
        }
      }
    }
    Mat3& pivot = factor_[d];
    for (int a = 0; a < 3; ++a) pivot(a, a) += diagonal_compensation;
    // A pivot that fails its Cholesky test (round-off only) is replaced by the matrix's own
    // diagonal block.
    const Mat3 symmetric = 0.5 * (pivot + pivot.transpose());
    pivot = block3::symmetric_part_positive_definite(symmetric) ? symmetric.inverse()
                                                                : Mat3(A.blocks[d].inverse());
  }
}

double BlockIncompleteCholesky::apply(const std::vector<Vec3>& r, std::vector<Vec3>& z) const {
  const BlockCsrMatrix& A = *pattern_;
  const int n = A.rows;
  z.resize(n);
  // Forward: y = L⁻¹ r (unit lower blocks).
  for (int i = 0; i < n; ++i) {
    if (constrained_[i]) {
      z[i].setZero();
      continue;
    }
    block3::Acc s;
    for (int p = A.row_offsets[i]; p < A.diagonal[i]; ++p) s.add_product(factor_[p], z[A.cols[p]]);
    z[i] = r[i] - s.vec();
  }
  // Backward: z = U⁻¹ y, and rᵀz on the way. The nearest row, z_{i+1} (just computed), comes
  // last, so the other terms do not wait for it.
  double dot = 0;
  for (int i = n - 1; i >= 0; --i) {
    if (constrained_[i]) continue;
    const int d = A.diagonal[i];
    block3::Acc s;
    for (int p = A.row_offsets[i + 1] - 1; p > d; --p) s.add_product(factor_[p], z[A.cols[p]]);
    z[i] = block3::product(factor_[d], Vec3(z[i] - s.vec()));
    dot += r[i].dot(z[i]);
  }
  return dot;
}

}  // namespace impetus
