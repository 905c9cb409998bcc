#pragma once
// Scalar kernels for the 3×3 blocks of the cloth's implicit solve (block_sparse.h,
// block_ichol.h), on Eigen's column-major storage of Mat3 (m[3·col + row]).
//
// Why not Eigen's own products: without AVX, Eigen splits a 3-vector into one SSE2 packet and
// a scalar, and its fixed-size temporaries are written as scalars and read back as packets,
// which defeats store-to-load forwarding. On the 64 × 64 hang the PCG's block row product ran
// 2.2× faster written out like this, and the incomplete factorisation stalled on one such
// reload for a sixth of its time. Every sum here has a fixed order (no FMA contraction: the
// build passes -ffp-contract=off), so results never depend on how the loops are scheduled.
#include <cmath>

#include "collision/base/math.h"

namespace impetus::block3 {

/// Running sum of block products, kept in scalars so that it stays in registers.
struct Acc {
  double x = 0, y = 0, z = 0;
  /// this += M v.
  void add_product(const Mat3& M, const Vec3& v) {
    const double* m = M.data();
    const double v0 = v[0], v1 = v[1], v2 = v[2];
    x += m[0] * v0 + m[3] * v1 + m[6] * v2;
    y += m[1] * v0 + m[4] * v1 + m[7] * v2;
    z += m[2] * v0 + m[5] * v1 + m[8] * v2;
  }
  /// this += w v.
  void add_scaled(double w, const Vec3& v) {
    x += w * v[0];
    y += w * v[1];
    z += w * v[2];
  }
  Vec3 vec() const { return Vec3(x, y, z); }
};

/// M v.
inline Vec3 product(const Mat3& M, const Vec3& v) {
  Acc a;
  a.add_product(M, v);
  return a.vec();
}

/// Calls f(k, (A B)_k) for the 9 entries of A B, k = 3·col + row (the storage order), each
/// summed in the same fixed order.
template <class F>
inline void for_each_product_entry(const Mat3& A, const Mat3& B, F&& f) {
  const double* a = A.data();
  const double* b = B.data();
  for (int j = 0; j < 3; ++j) {
    const double b0 = b[3 * j], b1 = b[3 * j + 1], b2 = b[3 * j + 2];
    for (int i = 0; i < 3; ++i) f(3 * j + i, a[i] * b0 + a[3 + i] * b1 + a[6 + i] * b2);
  }
}

/// C = A B.
inline void product(const Mat3& A, const Mat3& B, Mat3& C) {
  double* c = C.data();
  for_each_product_entry(A, B, [c](int k, double v) { c[k] = v; });
}

/// C −= A B.
inline void subtract_product(const Mat3& A, const Mat3& B, Mat3& C) {
  double* c = C.data();
  for_each_product_entry(A, B, [c](int k, double v) { c[k] -= v; });
}

/// Frobenius norm of A B, without forming it in memory.
inline double product_norm(const Mat3& A, const Mat3& B) {
  double s = 0;
  for_each_product_entry(A, B, [&s](int, double v) { s += v * v; });
  return std::sqrt(s);
}

/// Whether the symmetric part of A is positive definite: the pivots of its Cholesky
/// factorisation are all positive (false for NaN).
inline bool symmetric_part_positive_definite(const Mat3& A) {
  const double a00 = A(0, 0), a11 = A(1, 1), a22 = A(2, 2);
  const double a10 = 0.5 * (A(1, 0) + A(0, 1)), a20 = 0.5 * (A(2, 0) + A(0, 2));
  const double a21 = 0.5 * (A(2, 1) + A(1, 2));
  if (!(a00 > 0)) return false;
  const double l00 = std::sqrt(a00);
  const double l10 = a10 / l00, l20 = a20 / l00;
  const double d1 = a11 - l10 * l10;
  if (!(d1 > 0)) return false;
  const double l11 = std::sqrt(d1);
  const double l21 = (a21 - l20 * l10) / l11;
  const double d2 = a22 - l20 * l20 - l21 * l21;
  return d2 > 0;
}

}  // namespace impetus::block3
