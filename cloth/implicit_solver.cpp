#include "cloth/implicit_solver.h"

#include <algorithm>
#include <cmath>

#include "cloth/cloth_parallel.h"

namespace impetus {
namespace {

double sum_in_order(const std::vector<double>& partial) {
  double s = 0;
  for (double p : partial) s += p;
  return s;
}

// Row i of (blocks + c·Q) x.
Vec3 row_product(const BlockCsrMatrix& A, const ScalarCsrMatrix& Q, double c,
                 const std::vector<Vec3>& x, std::ptrdiff_t i) {
  Vec3 sum = Vec3::Zero();
  for (int k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) sum.noalias() += A.blocks[k] * x[A.cols[k]];
  if (Q.rows > 0 && c != 0) {
    Vec3 b = Vec3::Zero();
    for (int k = Q.row_offsets[i]; k < Q.row_offsets[i + 1]; ++k) b += Q.values[k] * x[Q.cols[k]];
    sum += c * b;
  }
  return sum;
}

}  // namespace

void ImplicitSolver::apply(const BlockCsrMatrix& blocks, const ScalarCsrMatrix& bending, double c,
                           const std::vector<Vec3>& x, std::vector<Vec3>& y, int threads) const {
  y.resize(blocks.rows);
  cloth_parallel_for(blocks.rows, threads, [&](std::ptrdiff_t i) { y[i] = row_product(blocks, bending, c, x, i); });
}

void ImplicitSolver::precondition(const std::vector<char>& constrained, const std::vector<Vec3>& r,
                                  std::vector<Vec3>& z, int threads) const {
  if (use_ichol_now_) {
    ichol_.apply(r, z);
    return;
  }
  z.resize(r.size());
  cloth_parallel_for(static_cast<std::ptrdiff_t>(r.size()), threads, [&](std::ptrdiff_t i) {
    z[i] = constrained[i] ? Vec3(Vec3::Zero()) : Vec3(inv_diag_[i] * r[i]);
  });
}

namespace {
// IC(0) is accepted while its δ0 = rᵀP⁻¹r is within this factor of block Jacobi's (for a stable
// factorisation the two are of the same order).
constexpr double kMaxIcholDeltaRatio = 1e3;
}  // namespace

PcgResult ImplicitSolver::solve(const BlockCsrMatrix& blocks, const ScalarCsrMatrix& bending,
                                double bending_coefficient, const std::vector<Vec3>& b,
                                const std::vector<char>& constrained, const std::vector<Vec3>& z,
                                double tolerance, double absolute_floor, int max_iterations,
                                int /*threads*/, std::vector<Vec3>& dv) {
  // The whole solve runs on the calling thread: the triangular solves of the preconditioner
  // are serial anyway, and the remaining per-iteration loops (a few µs each at cloth sizes)
  // would each need a parallel region and barrier, which on a loaded machine cost far more
  // than they save (cloth_parallel.h). The chunked dot products keep the same rounding as
  // before, so the result is the same for any thread count.
  const int threads = 1;
  const int n = blocks.rows;
  const double cb = bending_coefficient;
  inv_diag_.resize(n);
  r_.resize(n);
  c_.resize(n);
  q_.resize(n);
  s_.resize(n);
  dv.resize(n);
  part_a_.resize(chunk_count(n));
  part_b_.resize(chunk_count(n));
  std::vector<double>& part_a = part_a_;
  std::vector<double>& part_b = part_b_;

  // Constrained values; r = filter(b) for δ0 = filter(b)ᵀ P⁻¹ filter(b).
  cloth_parallel_for(n, threads, [&](std::ptrdiff_t i) {
    // The block-Jacobi inverse is kept also with the incomplete factorisation: it is the
    // stability reference and the fallback (below).
    Mat3 d = blocks.blocks[blocks.diagonal[i]];
    if (bending.rows > 0) d.diagonal().array() += cb * bending.diagonal(static_cast<int>(i));
    inv_diag_[i] = d.inverse();
    if (constrained[i]) {
      dv[i] = z[i];
      r_[i].setZero();
    } else {
      r_[i] = b[i];
    }
  });
  use_ichol_now_ = false;
  precondition(constrained, r_, s_, threads);
  double delta0 = deterministic_dot(r_, s_, threads);
  // The compensated factorisation is SPD by construction (block_ichol.h); as a guard against
  // round-off its δ0 must still be of the order of block Jacobi's, which is always stable,
  // else block Jacobi preconditions this solve.
  const double jacobi_delta0 = delta0;
  ichol_.factor(blocks, bending, cb, constrained);
  use_ichol_now_ = true;
  precondition(constrained, r_, s_, threads);
  const double ichol_delta0 = deterministic_dot(r_, s_, threads);
  if (std::isfinite(ichol_delta0) && ichol_delta0 > 0 && ichol_delta0 <= kMaxIcholDeltaRatio * jacobi_delta0) {
    delta0 = ichol_delta0;
  } else {
    use_ichol_now_ = false;
  }

  // r = filter(b − A dv), c = filter(P⁻¹ r), δ = rᵀc.
  cloth_parallel_for(n, threads, [&](std::ptrdiff_t i) {
    if (constrained[i]) {
      r_[i].setZero();
    } else {
      r_[i] = b[i] - row_product(blocks, bending, cb, dv, i);
    }
  });
  precondition(constrained, r_, c_, threads);
  double delta = deterministic_dot(r_, c_, threads);
  PcgResult result;
  if (!(delta0 > 0)) return result;
  const double target = std::max(tolerance * tolerance * delta0, absolute_floor);
  int it = 0;
  while (delta > target && it < max_iterations) {
    // q = filter(A c) and cᵀq in one pass.
    for_each_chunk(n, threads, [&](std::ptrdiff_t ch, std::ptrdiff_t begin, std::ptrdiff_t end) {
      double s = 0;
      for (std::ptrdiff_t i = begin; i < end; ++i) {
        if (constrained[i]) {
          q_[i].setZero();
          continue;
        }
        q_[i] = row_product(blocks, bending, cb, c_, i);
        s += c_[i].dot(q_[i]);
      }
      part_a[ch] = s;
    });
    const double cq = sum_in_order(part_a);
    if (!(cq > 0)) break;
    const double alpha = delta / cq;
    // dv += α c, r −= α q; s = P⁻¹ r, δ = rᵀs.
    cloth_parallel_for(n, threads, [&](std::ptrdiff_t i) {
      dv[i] += alpha * c_[i];
      r_[i] -= alpha * q_[i];
    });
    precondition(constrained, r_, s_, threads);
    for_each_chunk(n, threads, [&](std::ptrdiff_t ch, std::ptrdiff_t begin, std::ptrdiff_t end) {
      double s = 0;
      for (std::ptrdiff_t i = begin; i < end; ++i) s += r_[i].dot(s_[i]);
      part_b[ch] = s;
    });
    const double delta_old = delta;
    delta = sum_in_order(part_b);
    const double beta = delta / delta_old;
    cloth_parallel_for(n, threads, [&](std::ptrdiff_t i) {
      c_[i] = constrained[i] ? Vec3(Vec3::Zero()) : Vec3(s_[i] + beta * c_[i]);
    });
    ++it;
  }
  result.iterations = it;
  result.relative_residual = std::sqrt(std::max(delta, 0.0) / delta0);
  return result;
}

}  // namespace impetus
