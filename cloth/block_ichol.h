#pragma once
// Block incomplete factorisation preconditioner for the cloth's implicit system: the zero-fill
// block LU (ILU(0), equal to the incomplete LDLᵀ / IC(0) of a symmetric matrix) of
// blocks + c·(Q ⊗ I₃) restricted to the blocks' vertex 1-ring pattern, i.e. the bending term
// contributes only its 1-ring entries. Constrained vertices are decoupled (identity rows and
// zero couplings), matching the filtered CG. The triangular solves run serially in vertex
// order, so the result never depends on the thread count. A pivot block that is not positive
// definite (possible with incomplete factors) is replaced by the matrix's own diagonal block.
#include <vector>

#include "cloth/block_sparse.h"

namespace impetus {

class BlockIncompleteCholesky {
 public:
  /// Factorises blocks + c·Q on the blocks' pattern.
  void factor(const BlockCsrMatrix& blocks, const ScalarCsrMatrix& bending, double c,
              const std::vector<char>& constrained);
  /// z = M⁻¹ r (z is zero on constrained rows).
  void apply(const std::vector<Vec3>& r, std::vector<Vec3>& z) const;

 private:
  const BlockCsrMatrix* pattern_ = nullptr;
  std::vector<Mat3> factor_;    // lower: L_ik; diagonal: U_ii⁻¹; upper: U_ij
  std::vector<char> constrained_;
};

}  // namespace impetus
