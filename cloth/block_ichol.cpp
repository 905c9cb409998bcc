#include "cloth/block_ichol.h"

#include <algorithm>
#include <utility>

#include "cloth/block3.h"
#include "collision/base/parallel.h"

namespace impetus {

void BlockIncompleteCholesky::set_pattern(const BlockCsrMatrix& A) {
  const int n = A.rows;
  pattern_id_ = A.pattern_id;
  order_.resize(n);
  std::vector<int> part(n, 0);  // 0, 1: the halves; 2: the separator
  if (n >= min_split_rows_) {
    // The halves by vertex index; the separator, the lower half's vertices with a neighbour in
    // the upper half (for a grid numbered row by row, one grid line). Unless the numbering is
    // unfavourable: a separator of more than an eighth of the rows would leave little for the
    // second thread, and the matrix is not split.
    const int half = n / 2;
    int separator = 0;
    for (int v = 0; v < n; ++v) {
      part[v] = v < half ? 0 : 1;
      if (v >= half) continue;
      for (int p = A.row_offsets[v]; p < A.row_offsets[v + 1]; ++p) {
        if (A.cols[p] >= half) {
          part[v] = 2;
          ++separator;
          break;
        }
      }
    }
    if (separator > n / 8) std::fill(part.begin(), part.end(), 0);
  }
  // Positions: the first half in ascending vertex order, the second in descending order (so
  // that each half is eliminated towards the separator), the separator last. Within each half
  // the vertex order is kept, as unsplit matrices keep it.
  int position = 0;
  part_begin_[0] = 0;
  for (int v = 0; v < n; ++v)
    if (part[v] == 0) order_[position++] = v;
  part_begin_[1] = position;
  for (int v = n - 1; v >= 0; --v)
    if (part[v] == 1) order_[position++] = v;
  part_begin_[2] = position;
  for (int v = 0; v < n; ++v)
    if (part[v] == 2) order_[position++] = v;
  part_begin_[3] = n;
  std::vector<int> position_of(n);
  for (int p = 0; p < n; ++p) position_of[order_[p]] = p;

  // The permuted pattern: row p holds vertex order_[p]'s blocks, columns sorted by position.
  offsets_.assign(n + 1, 0);
  cols_.resize(A.cols.size());
  source_.resize(A.cols.size());
  diagonal_.resize(n);
  std::vector<std::pair<int, int>> row;
  for (int p = 0; p < n; ++p) {
    const int v = order_[p];
    row.clear();
    for (int k = A.row_offsets[v]; k < A.row_offsets[v + 1]; ++k) row.emplace_back(position_of[A.cols[k]], k);
    std::sort(row.begin(), row.end());
    int at = offsets_[p];
    for (const auto& [column, source] : row) {
      if (column == p) diagonal_[p] = at;
      cols_[at] = column;
      source_[at] = source;
      ++at;
    }
    offsets_[p + 1] = at;
  }
  factor_.resize(A.blocks.size());
  compensation_.resize(n);
  y_.resize(n);
  constrained_.resize(n);
  for (std::vector<double>& c : separator_compensation_) c.resize(n - part_begin_[2]);
}

void BlockIncompleteCholesky::factor_rows(const BlockCsrMatrix& A, int part) {
  const int separator = part_begin_[2];
  for (int i = part_begin_[part]; i < part_begin_[part + 1]; ++i) {
    const int begin = offsets_[i], end = offsets_[i + 1], d = diagonal_[i];
    if (constrained_[i]) {
      for (int p = begin; p < end; ++p) factor_[p].setZero();
      factor_[d].setIdentity();
      continue;
    }
    // Working row: a_ij, couplings to constrained vertices dropped.
    for (int p = begin; p < end; ++p) {
      const int j = cols_[p];
      if (j != i && constrained_[j]) {
        factor_[p].setZero();
      } else {
        factor_[p] = A.blocks[source_[p]];
      }
    }
    for (int a = 0; a < 3; ++a) factor_[d](a, a) += compensation_[i];
    // IKJ elimination: for each k < i in the row, L_ik = W_ik U_kk⁻¹, then W_ij −= L_ik U_kj
    // for the j > k present in both rows (zero fill). A dropped fill block F = L_ik U_kj at
    // (i, j), j > i, adds ‖F‖_F·I to the diagonal blocks i and j; its mirror at (j, i) is the
    // fill L_jk U_ki dropped in row j with the same k (= Fᵀ for a symmetric matrix), so each
    // pair is compensated once, here. A half's row writes the separator's share apart.
    double diagonal_compensation = 0;
    for (int p = begin; p < d; ++p) {
      const int k = cols_[p];
      if (constrained_[k]) continue;
      Mat3 l;
      block3::product(factor_[p], factor_[diagonal_[k]], l);
      factor_[p] = l;
      int pi = p + 1;
      const int k_end = offsets_[k + 1];
      for (int pk = diagonal_[k] + 1; pk < k_end; ++pk) {
        const int jk = cols_[pk];
        while (pi < end && cols_[pi] < jk) ++pi;
        if (pi < end && cols_[pi] == jk) {
          block3::subtract_product(l, factor_[pk], factor_[pi]);
        } else if (jk > i) {
          const double norm = block3::product_norm(l, factor_[pk]);
          diagonal_compensation += norm;
          if (part < 2 && jk >= separator) {
            separator_compensation_[part][jk - separator] += norm;
          } else {
            compensation_[jk] += norm;
          }
        }
      }
    }
    Mat3& pivot = factor_[d];
    for (int a = 0; a < 3; ++a) pivot(a, a) += diagonal_compensation;
    // A pivot that fails its Cholesky test (round-off only) is replaced by the matrix's own
    // diagonal block.
    const Mat3 symmetric = 0.5 * (pivot + pivot.transpose());
    pivot = block3::symmetric_part_positive_definite(symmetric) ? symmetric.inverse()
                                                                : Mat3(A.blocks[source_[d]].inverse());
  }
}

template <class Team>
void BlockIncompleteCholesky::factor(Team& team, const BlockCsrMatrix& A,
                                     const std::vector<char>& constrained) {
  team.single([&] {
    if (A.pattern_id != pattern_id_) set_pattern(A);
    const int n = A.rows;
    for (int p = 0; p < n; ++p) constrained_[p] = constrained[order_[p]];
    std::fill(compensation_.begin(), compensation_.end(), 0.0);
    for (std::vector<double>& c : separator_compensation_) std::fill(c.begin(), c.end(), 0.0);
  });
  team.for_static(0, 2, [&](std::ptrdiff_t part) { factor_rows(A, static_cast<int>(part)); });
  team.single([&] {
    // The halves' fill onto the separator's diagonal, in part order.
    const int separator = part_begin_[2];
    for (int i = separator; i < A.rows; ++i)
      compensation_[i] = separator_compensation_[0][i - separator] + separator_compensation_[1][i - separator];
    factor_rows(A, 2);
  });
}

void BlockIncompleteCholesky::forward_rows(const std::vector<Vec3>& r, int part) {
  // y = L⁻¹ r (unit lower blocks).
  for (int i = part_begin_[part]; i < part_begin_[part + 1]; ++i) {
    if (constrained_[i]) {
      y_[i].setZero();
      continue;
    }
    block3::Acc s;
    for (int p = offsets_[i]; p < diagonal_[i]; ++p) s.add_product(factor_[p], y_[cols_[p]]);
    y_[i] = r[order_[i]] - s.vec();
  }
}

double BlockIncompleteCholesky::backward_rows(const std::vector<Vec3>& r, std::vector<Vec3>& z, int part) {
  // z = U⁻¹ y, and rᵀz on the way. The nearest row, i + 1 (just computed), comes last, so the
  // other terms do not wait for it.
  double dot = 0;
  for (int i = part_begin_[part + 1] - 1; i >= part_begin_[part]; --i) {
    const int v = order_[i];
    if (constrained_[i]) {
      z[v].setZero();
      continue;
    }
    const int d = diagonal_[i];
    block3::Acc s;
    for (int p = offsets_[i + 1] - 1; p > d; --p) s.add_product(factor_[p], y_[cols_[p]]);
    y_[i] = block3::product(factor_[d], Vec3(y_[i] - s.vec()));
    z[v] = y_[i];
    dot += r[v].dot(y_[i]);
  }
  return dot;
}

template <class Team>
double BlockIncompleteCholesky::apply(Team& team, const std::vector<Vec3>& r, std::vector<Vec3>& z) {
  team.single([&] { z.resize(r.size()); });
  team.for_static(0, 2, [&](std::ptrdiff_t part) { forward_rows(r, static_cast<int>(part)); });
  team.single([&] {
    forward_rows(r, 2);
    dot_[2] = backward_rows(r, z, 2);
  });
  team.for_static(0, 2, [&](std::ptrdiff_t part) { dot_[part] = backward_rows(r, z, static_cast<int>(part)); });
  return dot_[2] + dot_[1] + dot_[0];
}

void BlockIncompleteCholesky::factor(const BlockCsrMatrix& blocks, const std::vector<char>& constrained) {
  SerialTeam team;
  factor(team, blocks, constrained);
}

double BlockIncompleteCholesky::apply(const std::vector<Vec3>& r, std::vector<Vec3>& z) {
  SerialTeam team;
  return apply(team, r, z);
}

template void BlockIncompleteCholesky::factor(SerialTeam&, const BlockCsrMatrix&, const std::vector<char>&);
template void BlockIncompleteCholesky::factor(OmpTeam&, const BlockCsrMatrix&, const std::vector<char>&);
template double BlockIncompleteCholesky::apply(SerialTeam&, const std::vector<Vec3>&, std::vector<Vec3>&);
template double BlockIncompleteCholesky::apply(OmpTeam&, const std::vector<Vec3>&, std::vector<Vec3>&);

}  // namespace impetus
