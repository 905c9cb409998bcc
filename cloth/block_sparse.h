#pragma once
// Sparse storage for the cloth's implicit system: a 3×3-block CSR matrix on the vertex 1-ring
// (stretch/shear Jacobians) and a scalar CSR matrix ⊗ I₃ (the constant isometric-bending
// Hessian, whose 2-ring pattern would triple the block storage). Products run in parallel over
// rows, each row writing its own slot; dot products sum fixed-size chunks and then the chunk
// sums in order, so results do not depend on the thread count.
#include <cstdint>
#include <vector>

#include "collision/base/math.h"

namespace impetus {

struct BlockCsrMatrix {
  int rows = 0;
  std::vector<int> row_offsets;  // rows + 1
  std::vector<int> cols;         // sorted within each row
  std::vector<int> diagonal;     // index of block (i, i)
  std::vector<Mat3> blocks;
  // Names this pattern among all patterns set in the process (0: none yet), so that what is
  // derived from a pattern (block_ichol.h's order) can tell it is still current. Change the
  // pattern only through set_pattern.
  std::uint64_t pattern_id = 0;

  /// Pattern from sorted neighbour lists (the diagonal is added).
  void set_pattern(int n, const std::vector<int>& neighbor_offsets, const std::vector<int>& neighbors);
  /// Index of block (i, j) or -1.
  int find(int i, int j) const;
  /// y = this · x.
  void multiply(const std::vector<Vec3>& x, std::vector<Vec3>& y, int threads) const;
};

struct ScalarCsrMatrix {
  int rows = 0;
  std::vector<int> row_offsets;
  std::vector<int> cols;
  std::vector<double> values;

  /// y += c · (this ⊗ I₃) · x.
  void multiply_add(double c, const std::vector<Vec3>& x, std::vector<Vec3>& y, int threads) const;
  double diagonal(int i) const;
  /// ½ Σ_ij this_ij x_i·x_j.
  double quadratic_form(const std::vector<Vec3>& x) const;
};

/// Σ a_i·b_i, summed in fixed chunks so that the rounding never depends on `threads`.
double deterministic_dot(const std::vector<Vec3>& a, const std::vector<Vec3>& b, int threads);

}  // namespace impetus
