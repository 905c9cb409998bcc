#include "cloth/implicit_solver.h"

#include <algorithm>
#include <cmath>

#include "cloth/block3.h"
#include "cloth/block3_avx2.h"
#include "cloth/cloth_parallel.h"

namespace impetus {
namespace {

// Raw views of the system's arrays, made inside each chunk's loop: the loop body is also an
// OpenMP region's (cloth_parallel.h), through which the captured references escape, so the
// compiler would otherwise reload the vectors' data pointers after every store.
struct SystemRows {
  const int* offsets;
  const int* cols;
  const Mat3* blocks;
  const int* q_offsets;
  const int* q_cols;
  const double* q_values;
  double c;
  SystemRows(const BlockCsrMatrix& A, const ScalarCsrMatrix& Q, double c_in)
      : offsets(A.row_offsets.data()), cols(A.cols.data()), blocks(A.blocks.data()),
        q_offsets(Q.rows > 0 ? Q.row_offsets.data() : nullptr), q_cols(Q.cols.data()),
        q_values(Q.values.data()), c(Q.rows > 0 ? c_in : 0.0) {}

  // Row i of (blocks + c·Q) x. Two accumulators for the blocks: a row's products then form two
  // independent dependency chains instead of one.
  Vec3 product(const Vec3* x, std::ptrdiff_t i) const {
    block3::Acc even, odd;
    int k = offsets[i];
    const int end = offsets[i + 1];
    for (; k + 1 < end; k += 2) {
      even.add_product(blocks[k], x[cols[k]]);
      odd.add_product(blocks[k + 1], x[cols[k + 1]]);
    }
    if (k < end) even.add_product(blocks[k], x[cols[k]]);
    Vec3 sum(even.x + odd.x, even.y + odd.y, even.z + odd.z);
    if (c != 0) {
      block3::Acc b;
      for (int j = q_offsets[i]; j < q_offsets[i + 1]; ++j) b.add_scaled(q_values[j], x[q_cols[j]]);
      sum += c * b.vec();
    }
    return sum;
  }

  // q_i = row i's product with x (0 on fixed rows) for i in [begin, end); returns Σ x_i·q_i over
  // the free rows: one chunk of the PCG's main pass.
  double product_chunk(const char* fixed, const Vec3* x, Vec3* q, std::ptrdiff_t begin, std::ptrdiff_t end) const {
    double xq = 0;
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      if (fixed[i]) {
        q[i].setZero();
        continue;
      }
      q[i] = product(x, i);
      xq += x[i].dot(q[i]);
    }
    return xq;
  }

#ifdef IMPETUS_HAVE_TARGET_AVX2
  // The same, bit for bit, with block3_avx2.h's kernels (chosen by cpu_has_avx2()).
  IMPETUS_TARGET_AVX2 double product_chunk_avx2(const char* fixed, const Vec3* x, Vec3* q,
                                                std::ptrdiff_t begin, std::ptrdiff_t end) const {
    namespace v = block3::avx2;
    double xq = 0;
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      if (fixed[i]) {
        q[i].setZero();
        continue;
      }
      __m256d even = _mm256_setzero_pd(), odd = _mm256_setzero_pd();
      int k = offsets[i];
      const int k_end = offsets[i + 1];
      for (; k + 1 < k_end; k += 2) {
        even = _mm256_add_pd(even, v::product(blocks[k].data(), x[cols[k]].data()));
        odd = _mm256_add_pd(odd, v::product(blocks[k + 1].data(), x[cols[k + 1]].data()));
      }
      if (k < k_end) even = _mm256_add_pd(even, v::product(blocks[k].data(), x[cols[k]].data()));
      __m256d sum = _mm256_add_pd(even, odd);
      if (c != 0) {
        __m256d b = _mm256_setzero_pd();
        for (int j = q_offsets[i]; j < q_offsets[i + 1]; ++j)
          b = _mm256_add_pd(b, _mm256_mul_pd(_mm256_set1_pd(q_values[j]), v::load3(x[q_cols[j]].data())));
        sum = _mm256_add_pd(sum, _mm256_mul_pd(_mm256_set1_pd(c), b));
      }
      v::store3(q[i].data(), sum);
      xq += x[i].dot(q[i]);
    }
    return xq;
  }
#endif

  double product_chunk(bool avx2, const char* fixed, const Vec3* x, Vec3* q, std::ptrdiff_t begin,
                       std::ptrdiff_t end) const {
#ifdef IMPETUS_HAVE_TARGET_AVX2
    if (avx2) return product_chunk_avx2(fixed, x, q, begin, end);
#endif
    (void)avx2;
    return product_chunk(fixed, x, q, begin, end);
  }
};

}  // namespace

void ImplicitSolver::apply(const BlockCsrMatrix& blocks, const ScalarCsrMatrix& bending, double c,
                           const std::vector<Vec3>& x, std::vector<Vec3>& y, int threads) const {
  y.resize(blocks.rows);
  for_each_chunk(blocks.rows, threads, [&](std::ptrdiff_t, std::ptrdiff_t begin, std::ptrdiff_t end) {
    const SystemRows rows(blocks, bending, c);
    const Vec3* xp = x.data();
    Vec3* yp = y.data();
    for (std::ptrdiff_t i = begin; i < end; ++i) yp[i] = rows.product(xp, i);
  });
}

double ImplicitSolver::sum_chunks() const {
  double s = 0;
  for (double p : partial_) s += p;
  return s;
}

namespace {

// Rows per chunk of the solve's loops (and of its dot products' partial sums). Smaller than
// kChunkSize: the threads' shares of a 4,225-row system in chunks of 256 were 2,304 and 1,921
// rows; in chunks of 64, 2,112 and 2,113.
constexpr std::ptrdiff_t kSolveChunk = 64;
std::ptrdiff_t solve_chunks(std::ptrdiff_t n) { return (n + kSolveChunk - 1) / kSolveChunk; }

// body(chunk, begin, end) for the kSolveChunk chunks of [0, n), each thread one contiguous run
// of chunks (the same run in every loop, so a thread finds its rows in its own cache).
template <class Team, class Body>
void for_chunks(Team& team, std::ptrdiff_t n, Body&& body) {
  team.for_static(0, solve_chunks(n), [&](std::ptrdiff_t c) {
    const std::ptrdiff_t begin = c * kSolveChunk;
    body(c, begin, std::min(begin + kSolveChunk, n));
  });
}

// IC(0) is accepted while its δ0 = rᵀP⁻¹r is within this factor of block Jacobi's (for a stable
// factorisation the two are of the same order).
constexpr double kMaxIcholDeltaRatio = 1e3;

}  // namespace

struct ImplicitSolver::System {
  const BlockCsrMatrix& blocks;
  const ScalarCsrMatrix& bending;
  double bending_coefficient;
  const std::vector<Vec3>& b;
  const std::vector<char>& constrained;
  const std::vector<Vec3>& z;
  double tolerance, absolute_floor;
  int max_iterations;
};

template <class Team>
double ImplicitSolver::precondition(Team& team, bool ichol, const std::vector<char>& constrained,
                                    const std::vector<Vec3>& r, std::vector<Vec3>& z) {
  if (ichol) return ichol_.apply(team, r, z);
  for_chunks(team, static_cast<std::ptrdiff_t>(r.size()), [&](std::ptrdiff_t ch, std::ptrdiff_t begin, std::ptrdiff_t end) {
    double dot = 0;
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      z[i] = constrained[i] ? Vec3(Vec3::Zero()) : block3::product(inv_diag_[i], r[i]);
      dot += r[i].dot(z[i]);
    }
    partial_[ch] = dot;
  });
  return sum_chunks();
}

template <class Team>
PcgResult ImplicitSolver::iterate(Team& team, const System& sys, std::vector<Vec3>& dv) {
  const BlockCsrMatrix& blocks = sys.blocks;
  const std::vector<char>& constrained = sys.constrained;
  const double cb = sys.bending_coefficient;
  const std::ptrdiff_t n = blocks.rows;

  // Constrained values; r = filter(b) for δ0 = filter(b)ᵀ P⁻¹ filter(b).
  for_chunks(team, n, [&](std::ptrdiff_t, std::ptrdiff_t begin, std::ptrdiff_t end) {
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      // The block-Jacobi inverse is kept also with the incomplete factorisation: it is the
      // stability reference and the fallback (below).
      Mat3 d = blocks.blocks[blocks.diagonal[i]];
      if (cb != 0 && sys.bending.rows > 0) d.diagonal().array() += cb * sys.bending.diagonal(static_cast<int>(i));
      inv_diag_[i] = d.inverse();
      if (constrained[i]) {
        dv[i] = sys.z[i];
        r_[i].setZero();
      } else {
        r_[i] = sys.b[i];
      }
    }
  });
  // The compensated factorisation is SPD by construction (block_ichol.h); as a guard against
  // round-off its δ0 must still be of the order of block Jacobi's, which is always stable,
  // else block Jacobi preconditions this solve.
  const double jacobi_delta0 = precondition(team, false, constrained, r_, s_);
  ichol_.factor(team, blocks, constrained);
  const double ichol_delta0 = precondition(team, true, constrained, r_, s_);
  const bool ichol = std::isfinite(ichol_delta0) && ichol_delta0 > 0 &&
                     ichol_delta0 <= kMaxIcholDeltaRatio * jacobi_delta0;
  const double delta0 = ichol ? ichol_delta0 : jacobi_delta0;

  // r = filter(b − A dv), c = filter(P⁻¹ r), δ = rᵀc.
  for_chunks(team, n, [&](std::ptrdiff_t, std::ptrdiff_t begin, std::ptrdiff_t end) {
    const SystemRows rows(blocks, sys.bending, cb);
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      if (constrained[i]) {
        r_[i].setZero();
      } else {
        r_[i] = sys.b[i] - rows.product(dv.data(), i);
      }
    }
  });
  double delta = precondition(team, ichol, constrained, r_, c_);
  PcgResult result;
  if (!(delta0 > 0)) return result;
  const double target = std::max(sys.tolerance * sys.tolerance * delta0, sys.absolute_floor);
  int it = 0;
  while (delta > target && it < sys.max_iterations) {
    // q = filter(A c) and cᵀq in one pass.
    for_chunks(team, n, [&](std::ptrdiff_t ch, std::ptrdiff_t begin, std::ptrdiff_t end) {
      const SystemRows rows(blocks, sys.bending, cb);
      partial_[ch] = rows.product_chunk(avx2_, constrained.data(), c_.data(), q_.data(), begin, end);
    });
    const double cq = sum_chunks();
    if (!(cq > 0)) break;
    const double alpha = delta / cq;
    // dv += α c, r −= α q; s = P⁻¹ r, δ = rᵀs.
    for_chunks(team, n, [&](std::ptrdiff_t, std::ptrdiff_t begin, std::ptrdiff_t end) {
      for (std::ptrdiff_t i = begin; i < end; ++i) {
        dv[i] += alpha * c_[i];
        r_[i] -= alpha * q_[i];
      }
    });
    const double delta_old = delta;
    delta = precondition(team, ichol, constrained, r_, s_);
    const double beta = delta / delta_old;
    for_chunks(team, n, [&](std::ptrdiff_t, std::ptrdiff_t begin, std::ptrdiff_t end) {
      for (std::ptrdiff_t i = begin; i < end; ++i)
        c_[i] = constrained[i] ? Vec3(Vec3::Zero()) : Vec3(s_[i] + beta * c_[i]);
    });
    ++it;
  }
  result.iterations = it;
  result.relative_residual = std::sqrt(std::max(delta, 0.0) / delta0);
  return result;
}

PcgResult ImplicitSolver::solve(const BlockCsrMatrix& blocks, const ScalarCsrMatrix& bending,
                                double bending_coefficient, const std::vector<Vec3>& b,
                                const std::vector<char>& constrained, const std::vector<Vec3>& z,
                                double tolerance, double absolute_floor, int max_iterations,
                                int threads, std::vector<Vec3>& dv) {
  // One parallel region for the whole solve: the system products and the vector updates share
  // out fixed chunks of rows, and the incomplete factorisation's two halves run side by side
  // (block_ichol.h); each iteration costs a few barriers, not a region per loop. Dot products
  // sum per chunk and then the chunks in order, so every result is the same for any thread
  // count. Small cloths run on the calling thread.
  const int n = blocks.rows;
  partial_.assign(solve_chunks(n), 0.0);
  inv_diag_.resize(n);
  r_.resize(n);
  c_.resize(n);
  q_.resize(n);
  s_.resize(n);
  dv.resize(n);
  const int team_threads = cloth_threads_for(n, threads, kMinParallelSolveRows);
  const System system{blocks, bending, bending_coefficient, b, constrained, z, tolerance, absolute_floor, max_iterations};
  PcgResult result;
  run_team(team_threads, [&](auto& team) {
    const PcgResult mine = iterate(team, system, dv);
    if (team.thread() == 0) result = mine;
  });
  return result;
}

}  // namespace impetus
