#include "cloth/block_sparse.h"

#include <algorithm>
#include <atomic>

#include "cloth/cloth_parallel.h"

namespace impetus {

void BlockCsrMatrix::set_pattern(int n, const std::vector<int>& neighbor_offsets,
                                 const std::vector<int>& neighbors) {
  rows = n;
  row_offsets.assign(n + 1, 0);
  cols.clear();
  diagonal.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    std::vector<int> row(neighbors.begin() + neighbor_offsets[i], neighbors.begin() + neighbor_offsets[i + 1]);
    row.push_back(i);
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (int j : row) {
      if (j == i) diagonal[i] = static_cast<int>(cols.size());
      cols.push_back(j);
    }
    row_offsets[i + 1] = static_cast<int>(cols.size());
  }
  blocks.assign(cols.size(), Mat3::Zero());
  static std::atomic<std::uint64_t> patterns_set{0};
  pattern_id = ++patterns_set;
}

int BlockCsrMatrix::find(int i, int j) const {
  auto begin = cols.begin() + row_offsets[i], end = cols.begin() + row_offsets[i + 1];
  auto it = std::lower_bound(begin, end, j);
  if (it == end || *it != j) return -1;
  return static_cast<int>(it - cols.begin());
}

void BlockCsrMatrix::multiply(const std::vector<Vec3>& x, std::vector<Vec3>& y, int threads) const {
  y.resize(rows);
  cloth_parallel_for(rows, threads, [&](std::ptrdiff_t i) {
    Vec3 sum = Vec3::Zero();
    for (int k = row_offsets[i]; k < row_offsets[i + 1]; ++k) sum.noalias() += blocks[k] * x[cols[k]];
    y[i] = sum;
  });
}

void ScalarCsrMatrix::multiply_add(double c, const std::vector<Vec3>& x, std::vector<Vec3>& y,
                                   int threads) const {
  if (rows == 0 || c == 0) return;
  cloth_parallel_for(rows, threads, [&](std::ptrdiff_t i) {
    Vec3 sum = Vec3::Zero();
    for (int k = row_offsets[i]; k < row_offsets[i + 1]; ++k) sum += values[k] * x[cols[k]];
    y[i] += c * sum;
  });
}

double ScalarCsrMatrix::diagonal(int i) const {
  for (int k = row_offsets[i]; k < row_offsets[i + 1]; ++k)
    if (cols[k] == i) return values[k];
  return 0.0;
}

double ScalarCsrMatrix::quadratic_form(const std::vector<Vec3>& x) const {
  double sum = 0;
  for (int i = 0; i < rows; ++i)
    for (int k = row_offsets[i]; k < row_offsets[i + 1]; ++k) sum += values[k] * x[i].dot(x[cols[k]]);
  return 0.5 * sum;
}

double deterministic_dot(const std::vector<Vec3>& a, const std::vector<Vec3>& b, int threads) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(a.size());
  // Per-thread scratch: the CG calls this several times per iteration (no allocation per call).
  thread_local std::vector<double> partial;
  partial.assign(chunk_count(n), 0.0);
  for_each_chunk(n, threads, [&](std::ptrdiff_t c, std::ptrdiff_t begin, std::ptrdiff_t end) {
    double s = 0;
    for (std::ptrdiff_t i = begin; i < end; ++i) s += a[i].dot(b[i]);
    partial[c] = s;
  });
  double s = 0;
  for (double p : partial) s += p;
  return s;
}

}  // namespace impetus
