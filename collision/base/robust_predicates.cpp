#include "collision/base/robust_predicates.h"

#include <array>
#include <cmath>
#include <limits>

namespace impetus {
namespace {

// Error-free transformations (Shewchuk 1997, "Adaptive precision floating-point arithmetic and
// fast robust geometric predicates"): a + b = s + e and a·b = p + e exactly, for doubles without
// overflow or underflow. -ffp-contract=off keeps the compiler from fusing the additions below;
// std::fma is correctly rounded by definition, so fma(a, b, −p) is the exact product residue.
inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  double b_virtual = s - a;
  double a_virtual = s - b_virtual;
  e = (a - a_virtual) + (b - b_virtual);
}

inline void two_product(double a, double b, double& p, double& e) {
  p = a * b;
  e = std::fma(a, b, -p);
}

// A sum of doubles kept exactly as a non-overlapping expansion ordered by increasing magnitude
// (Shewchuk's Grow-Expansion with zero elimination). Its sign is the sign of its largest
// (last non-zero) component.
class Expansion {
 public:
  void add(double b) {
    if (b == 0) return;
    double q = b;
    int out = 0;
    for (int i = 0; i < size_; ++i) {
      double s, e;
      two_sum(q, c_[i], s, e);
      q = s;
      if (e != 0) c_[out++] = e;
    }
    c_[out++] = q;
    size_ = out;
  }
  int sign() const {
    for (int i = size_ - 1; i >= 0; --i) {
      if (c_[i] > 0) return 1;
      if (c_[i] < 0) return -1;
    }
    return 0;
  }

 private:
  // 6 determinant terms × 8 component products × 4 doubles each = 192 additions at most, and the
  // expansion never holds more components than additions so far plus one.
  std::array<double, 200> c_{};
  int size_ = 0;
};

// Exact sign of the determinant, from coordinate differences held as two-component sums.
int orient3d_exact(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& p) {
  // d[0] = b − a, d[1] = c − a, d[2] = p − a; each coordinate as hi + lo exactly.
  double hi[3][3], lo[3][3];
  const Vec3* others[3] = {&b, &c, &p};
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 3; ++k) two_sum((*others[r])[k], -a[k], hi[r][k], lo[r][k]);
  }
  // det = w · (u × v) = Σ ε_ijk w_i u_j v_k with u = d[0], v = d[1], w = d[2].
  static constexpr int kPerm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
                                      {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  static constexpr double kSign[6] = {1, 1, 1, -1, -1, -1};
  Expansion sum;
  for (int t = 0; t < 6; ++t) {
    const int i = kPerm[t][0], j = kPerm[t][1], k = kPerm[t][2];
    const double w_parts[2] = {hi[2][i], lo[2][i]};
    const double u_parts[2] = {hi[0][j], lo[0][j]};
    const double v_parts[2] = {hi[1][k], lo[1][k]};
    for (double x : w_parts) {
      for (double y : u_parts) {
        for (double z : v_parts) {
          if (x == 0 || y == 0 || z == 0) continue;
          double p1, e1, q1, r1, q2, r2;
          two_product(x, y, p1, e1);  // x·y = p1 + e1
          two_product(p1, z, q1, r1); // p1·z = q1 + r1
          two_product(e1, z, q2, r2); // e1·z = q2 + r2
          sum.add(kSign[t] * q1);
          sum.add(kSign[t] * r1);
          sum.add(kSign[t] * q2);
          sum.add(kSign[t] * r2);
        }
      }
    }
  }
  return sum.sign();
}

}  // namespace

int orient3d_sign(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& p) {
  const Vec3 u = b - a;
  const Vec3 v = c - a;
  const Vec3 w = p - a;
  const double det = w.x() * (u.y() * v.z() - u.z() * v.y()) +
                     w.y() * (u.z() * v.x() - u.x() * v.z()) +
                     w.z() * (u.x() * v.y() - u.y() * v.x());
  const double permanent =
      std::abs(w.x()) * (std::abs(u.y() * v.z()) + std::abs(u.z() * v.y())) +
      std::abs(w.y()) * (std::abs(u.z() * v.x()) + std::abs(u.x() * v.z())) +
      std::abs(w.z()) * (std::abs(u.x() * v.y()) + std::abs(u.y() * v.x()));
  // Shewchuk's static bound for this evaluation order is (7 + 56ε)ε·permanent with ε = 2⁻⁵³;
  // 16ε leaves a wide margin and still decides all but nearly coplanar quadruples.
  constexpr double kFilter = 8 * std::numeric_limits<double>::epsilon();
  const double bound = kFilter * permanent;
  if (det > bound) return 1;
  if (det < -bound) return -1;
  return orient3d_exact(a, b, c, p);
}

}  // namespace impetus
