#include "cloth/block_ichol.h"

#include <Eigen/Cholesky>

namespace impetus {

void BlockIncompleteCholesky::factor(const BlockCsrMatrix& A, const ScalarCsrMatrix& Q, double c,
                                     const std::vector<char>& constrained) {
  pattern_ = &A;
  constrained_ = constrained;
  const int n = A.rows;
  factor_.resize(A.blocks.size());
  compensation_.assign(n, 0.0);
  const bool bend = Q.rows == n && c != 0;
  for (int i = 0; i < n; ++i) {
    const int begin = A.row_offsets[i], end = A.row_offsets[i + 1], d = A.diagonal[i];
    if (constrained[i]) {
      for (int p = begin; p < end; ++p) factor_[p].setZero();
      factor_[d].setIdentity();
      continue;
    }
    // Working row: a_ij (+ c·Q_ij on the pattern), couplings to constrained vertices dropped.
    int q = bend ? Q.row_offsets[i] : 0;
    const int q_end = bend ? Q.row_offsets[i + 1] : 0;
    for (int p = begin; p < end; ++p) {
      const int j = A.cols[p];
      Mat3 w = A.blocks[p];
      if (bend) {
        while (q < q_end && Q.cols[q] < j) ++q;
        if (q < q_end && Q.cols[q] == j) w.diagonal().array() += c * Q.values[q];
      }
      if (j != i && constrained[j]) w.setZero();
      factor_[p] = w;
    }
    const Mat3 original_diagonal = factor_[d];
    factor_[d].diagonal().array() += compensation_[i];
    // IKJ elimination: for each k < i in the row, L_ik = W_ik U_kk⁻¹, then W_ij −= L_ik U_kj
    // for the j > k present in both rows (zero fill). A dropped fill block F = L_ik U_kj at
    // (i, j), j > i, adds ‖F‖_F·I to the diagonal blocks i and j; its mirror at (j, i) is the
    // fill L_jk U_ki dropped in row j with the same k (= Fᵀ for a symmetric matrix), so each
    // pair is compensated once, here.
    for (int p = begin; p < d; ++p) {
      const int k = A.cols[p];
      if (constrained[k]) continue;
      const Mat3 l = factor_[p] * factor_[A.diagonal[k]];
      factor_[p] = l;
      int pi = p + 1;
      const int k_end = A.row_offsets[k + 1];
      for (int pk = A.diagonal[k] + 1; pk < k_end; ++pk) {
        const int jk = A.cols[pk];
        while (pi < end && A.cols[pi] < jk) ++pi;
        if (pi < end && A.cols[pi] == jk) {
          factor_[pi].noalias() -= l * factor_[pk];
        } else if (jk > i) {
          const Mat3 fill = l * factor_[pk];
          const double norm = fill.norm();
          factor_[d].diagonal().array() += norm;
          compensation_[jk] += norm;
        }
      }
    }
    Mat3 pivot = 0.5 * (factor_[d] + factor_[d].transpose());
    Eigen::LLT<Mat3> llt(pivot);
    if (llt.info() != Eigen::Success || !(llt.matrixLLT().diagonal().minCoeff() > 0)) pivot = original_diagonal;
    factor_[d] = pivot.inverse();
  }
}

void BlockIncompleteCholesky::apply(const std::vector<Vec3>& r, std::vector<Vec3>& z) const {
  const BlockCsrMatrix& A = *pattern_;
  const int n = A.rows;
  z.resize(n);
  // Forward: y = L⁻¹ r (unit lower blocks).
  for (int i = 0; i < n; ++i) {
    if (constrained_[i]) {
      z[i].setZero();
      continue;
    }
    Vec3 y = r[i];
    for (int p = A.row_offsets[i]; p < A.diagonal[i]; ++p) y.noalias() -= factor_[p] * z[A.cols[p]];
    z[i] = y;
  }
  // Backward: z = U⁻¹ y.
  for (int i = n - 1; i >= 0; --i) {
    if (constrained_[i]) continue;
    Vec3 y = z[i];
    for (int p = A.diagonal[i] + 1; p < A.row_offsets[i + 1]; ++p) y.noalias() -= factor_[p] * z[A.cols[p]];
    z[i] = factor_[A.diagonal[i]] * y;
  }
}

}  // namespace impetus
