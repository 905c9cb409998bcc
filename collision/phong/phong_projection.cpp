#include "collision/phong/phong_projection.h"

#include <algorithm>
#include <cmath>

namespace impetus {
namespace {

using Mat2 = Eigen::Matrix2d;

Mat2 rotation2(double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  Mat2 r;
  r << c, -s, s, c;
  return r;
}

// Closest rotation to a 2×2 matrix M (Ort of eq. 5.8 restricted to SO(2)): the angle maximising
// tr(Rᵀ M) = cos φ (M00 + M11) + sin φ (M10 − M01).
Mat2 closest_rotation(const Mat2& m) {
  return rotation2(std::atan2(m(1, 0) - m(0, 1), m(0, 0) + m(1, 1)));
}

// Newton runs in the enlarged triangle λ_i >= −kDomainMargin so that a solution on an edge is
// approached from both sides; a converged point with some λ_i < −kInsideTolerance belongs to a
// neighbour triangle (eq. 5.6 fails here).
constexpr double kDomainMargin = 0.05;
constexpr double kInsideTolerance = 1e-7;
// Forward-difference step for the Jacobian of eq. 5.4 in (λ1, λ2).
constexpr double kJacobianStep = 1e-7;
// Alternating Procrustes sweeps for eq. 5.11 before the Newton polish (each sweep updates
// E_12, E_23, E_31 once).
constexpr int kGaugeSweeps = 3;

}  // namespace

TangentFrame tangent_frame_of(const Vec3& n) {
  const Vec3 t1 = any_orthogonal(n);
  const Vec3 t2 = n.cross(t1).normalized();
  TangentFrame t;
  t.row(0) = t1.transpose();
  t.row(1) = t2.transpose();
  return t;
}

PhongTriangle::PhongTriangle(const std::array<Vec3, 3>& q, const std::array<Vec3, 3>& n) : q_(q) {
  for (int i = 0; i < 3; ++i) t_[i] = tangent_frame_of(n[i]);
  const Vec3 cross = (q[1] - q[0]).cross(q[2] - q[0]);
  mean_normal_ = n[0] + n[1] + n[2];
  if (mean_normal_.squaredNorm() > 0) mean_normal_.normalize();
  face_normal_ = cross.squaredNorm() > 0 ? Vec3(cross.normalized()) : mean_normal_;
  // R_ij = Ort(T_j T_iᵀ) for the edges (1,2), (2,3), (3,1).
  for (int k = 0; k < 3; ++k) {
    const int i = k, j = (k + 1) % 3;
    r_[k] = closest_rotation(t_[j] * t_[i].transpose());
  }
  // Eq. 5.11 (squared norms). With E_k = rotation(e_k) and own_k = {R_k T_k, T_{k+1}} the frames
  // of edge k before gauging, ‖A − A'‖² = 4 − 2 tr(E_k M M'ᵀ E_lᵀ), so the objective is, up to a
  // constant, −2 Σ_{k<l} [a_kl cos(e_k − e_l) + b_kl sin(e_k − e_l)] with N_kl = Σ M M'ᵀ over
  // M ∈ own_k, M' ∈ own_l, a = N00 + N11, b = N01 − N10 (tr(rotation(d) N) = a cos d + b sin d).
  // It depends on the two differences only (a common rotation of all E leaves every plane as it
  // is): we fix e_2 = 0, start from a few alternating Procrustes sweeps as the paper does, and
  // finish with Newton's method on (e_0, e_1) so that the gauges are converged to round-off and
  // the planes do not depend on the arbitrary tangent bases picked at the vertices.
  std::array<std::array<TangentFrame, 2>, 3> own;
  for (int k = 0; k < 3; ++k) own[k] = {r_[k] * t_[k], t_[(k + 1) % 3]};
  double a[3][3] = {}, b[3][3] = {};
  for (int k = 0; k < 3; ++k) {
    for (int l = k + 1; l < 3; ++l) {
      Mat2 n = Mat2::Zero();
      for (const TangentFrame& m : own[k]) {
        for (const TangentFrame& mp : own[l]) n += m * mp.transpose();
      }
      a[k][l] = n(0, 0) + n(1, 1);
      b[k][l] = n(0, 1) - n(1, 0);
    }
  }
  // Alternating sweeps: e_k maximises Σ_l [a cos(e_k − e_l) + b sin(e_k − e_l)] (signs flip for
  // l < k since d_lk = −d_kl).
  double e[3] = {0, 0, 0};
  for (int sweep = 0; sweep < kGaugeSweeps; ++sweep) {
    for (int k = 0; k < 3; ++k) {
      // Σ_l a_l cos(e_k − e_l) + b_l sin(e_k − e_l) = C cos e_k + S sin e_k.
      double c = 0, sn = 0;
      for (int l = 0; l < 3; ++l) {
        if (l == k) continue;
        const double al = k < l ? a[k][l] : a[l][k];
        const double bl = k < l ? b[k][l] : -b[l][k];
        c += al * std::cos(e[l]) - bl * std::sin(e[l]);
        sn += al * std::sin(e[l]) + bl * std::cos(e[l]);
      }
      e[k] = std::atan2(sn, c);
    }
  }
  for (int k = 0; k < 2; ++k) e[k] -= e[2];
  e[2] = 0;
  // Newton on F(e0, e1) = f01(e0 − e1) + f02(e0) + f12(e1), f(d) = a cos d + b sin d (maximise).
  for (int it = 0; it < 20; ++it) {
    auto d1 = [&](int k, int l, double d) { return -a[k][l] * std::sin(d) + b[k][l] * std::cos(d); };
    auto d2 = [&](int k, int l, double d) { return -a[k][l] * std::cos(d) - b[k][l] * std::sin(d); };
    const double d01 = e[0] - e[1], d02 = e[0], d12 = e[1];
    const Eigen::Vector2d grad(d1(0, 1, d01) + d1(0, 2, d02), -d1(0, 1, d01) + d1(1, 2, d12));
    Mat2 hess;
    hess << d2(0, 1, d01) + d2(0, 2, d02), -d2(0, 1, d01), -d2(0, 1, d01),
        d2(0, 1, d01) + d2(1, 2, d12);
    // Only a maximum (negative definite Hessian) is a valid Newton target.
    if (!(hess(0, 0) < 0 && hess.determinant() > 0)) break;
    const Eigen::Vector2d step = -hess.inverse() * grad;
    if (!step.allFinite()) break;
    e[0] += step[0];
    e[1] += step[1];
    if (step.norm() < 1e-15) break;
  }
  for (int k = 0; k < 3; ++k) e_[k] = rotation2(e[k]);
}

TangentFrame PhongTriangle::tangent_frame(const Vec3& lambda) const {
  // Eq. 5.9 rewritten without the 1/λ factors: Ψ = Σ_k (λ_i λ_j / S) Ψ_k over the edges k = (i, j),
  // S = λ1λ2 + λ2λ3 + λ3λ1. At a vertex S = 0 and Ψ is that vertex's tangent plane.
  const double s = lambda[0] * lambda[1] + lambda[1] * lambda[2] + lambda[2] * lambda[0];
  if (std::abs(s) < 1e-14) {
    int i = 0;
    for (int k = 1; k < 3; ++k) {
      if (lambda[k] > lambda[i]) i = k;
    }
    return t_[i];
  }
  TangentFrame psi = TangentFrame::Zero();
  for (int k = 0; k < 3; ++k) {
    const int i = k, j = (k + 1) % 3, l = (k + 2) % 3;
    const double w = lambda[i] * lambda[j] / s;
    if (w == 0) continue;
    // Eq. 5.10, Ψ_ij = λ_i E_ij R_ij T_i + λ_j E_ij T_j + λ_l ½ (E_jl + E_li R_li) T_l.
    TangentFrame psi_k = lambda[i] * (e_[k] * r_[k] * t_[i]) + lambda[j] * (e_[k] * t_[j]);
    const Mat2 gauge_l = 0.5 * (e_[(k + 1) % 3] + e_[l] * r_[l]);
    psi_k += lambda[l] * (gauge_l * t_[l]);
    psi += w * psi_k;
  }
  return psi;
}

Vec3 PhongTriangle::normal(const Vec3& lambda) const {
  const TangentFrame psi = tangent_frame(lambda);
  Vec3 n = psi.row(0).transpose().cross(psi.row(1).transpose());
  const double len = n.norm();
  if (!(len > 1e-12)) return face_normal_;
  n /= len;
  return n.dot(mean_normal_) < 0 ? Vec3(-n) : n;
}

double PhongTriangle::centroid_residual(const Vec3& o) const {
  const Vec3 lambda(1.0 / 3, 1.0 / 3, 1.0 / 3);
  const Vec3 d = point(lambda) - o;
  const Vec3 n = normal(lambda);
  return (d - d.dot(n) * n).norm();
}

std::optional<PhongHit> PhongTriangle::project(const Vec3& o, int max_iterations,
                                               double tolerance) const {
  // The paper starts Newton at the centroid. On long thin triangles (the fans of large faces of
  // D) a solution near the far edge is then out of Newton's reach, so we first start from the
  // foot of the perpendicular from o (clamped into the triangle), which is close to the Phong
  // projection when the normals vary little, and fall back to the centroid.
  const Vec3 centroid(1.0 / 3, 1.0 / 3, 1.0 / 3);
  const Vec3 cross = (q_[1] - q_[0]).cross(q_[2] - q_[0]);
  const double area2 = cross.squaredNorm();
  if (area2 > 0) {
    Vec3 foot;
    for (int i = 0; i < 3; ++i) {
      const Vec3& b = q_[(i + 1) % 3];
      const Vec3& c = q_[(i + 2) % 3];
      foot[i] = (c - b).cross(o - b).dot(cross) / area2;
    }
    foot = foot.cwiseMax(0.0);
    if (foot.sum() > 0) {
      foot /= foot.sum();
      if ((foot - centroid).norm() > 1e-3) {
        std::optional<PhongHit> hit = newton(o, foot, max_iterations, tolerance);
        if (hit) return hit;
      }
    }
  }
  return newton(o, centroid, max_iterations, tolerance);
}

std::optional<PhongHit> PhongTriangle::newton(const Vec3& o, const Vec3& start,
                                              int max_iterations, double tolerance) const {
  auto bary = [](const Eigen::Vector2d& x) { return Vec3(x[0], x[1], 1.0 - x[0] - x[1]); };
  // Eq. 5.4's left side, Ψ(λ)(q(λ) − o), and the tangential residual used to judge convergence
  // (independent of the scale of Ψ's rows).
  auto equation = [&](const Eigen::Vector2d& x) -> Eigen::Vector2d {
    const Vec3 lambda = bary(x);
    return tangent_frame(lambda) * (point(lambda) - o);
  };
  auto tangential = [&](const Eigen::Vector2d& x) {
    const Vec3 lambda = bary(x);
    const Vec3 d = point(lambda) - o;
    const Vec3 n = normal(lambda);
    return (d - d.dot(n) * n).norm();
  };

  Eigen::Vector2d x(start[0], start[1]);
  double res = tangential(x);
  int it = 0;
  // One more step once within tolerance: Newton converges quadratically, so the polish costs
  // one iteration and leaves the point accurate to round-off rather than to `tolerance`.
  bool polished = false;
  while (it < max_iterations) {
    if (res <= tolerance) {
      if (polished) break;
      polished = true;
    }
    ++it;
    const Eigen::Vector2d f = equation(x);
    Mat2 jac;
    for (int c = 0; c < 2; ++c) {
      Eigen::Vector2d xh = x;
      xh[c] += kJacobianStep;
      jac.col(c) = (equation(xh) - f) / kJacobianStep;
    }
    const double det = jac.determinant();
    if (!(std::abs(det) > 1e-300)) return std::nullopt;
    const Eigen::Vector2d step = -jac.inverse() * f;
    if (!step.allFinite()) return std::nullopt;
    // Longest step fraction keeping every λ_i >= −kDomainMargin.
    double alpha = 1.0;
    const Vec3 lam = bary(x);
    const Vec3 dlam(step[0], step[1], -step[0] - step[1]);
    for (int k = 0; k < 3; ++k) {
      if (dlam[k] < 0) alpha = std::min(alpha, (lam[k] + kDomainMargin) / -dlam[k]);
    }
    alpha = std::max(alpha, 0.0);
    // Backtracking on the tangential residual.
    bool improved = false;
    for (int halving = 0; halving < 12 && alpha > 0; ++halving, alpha *= 0.5) {
      const Eigen::Vector2d xn = x + alpha * step;
      const double rn = tangential(xn);
      if (rn < res) {
        x = xn;
        res = rn;
        improved = true;
        break;
      }
    }
    if (!improved) break;
  }
  if (!(res <= tolerance)) return std::nullopt;
  const Vec3 lambda = bary(x);
  if (lambda.minCoeff() < -kInsideTolerance) return std::nullopt;
  PhongHit hit;
  hit.lambda = lambda;
  hit.point = point(lambda);
  hit.normal = normal(lambda);
  hit.residual = res;
  hit.iterations = it;
  return hit;
}

}  // namespace impetus
