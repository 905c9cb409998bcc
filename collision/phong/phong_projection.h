#pragma once
// Phong projection of a point onto a triangle whose tangent planes are interpolated continuously
// from its vertices (paper 2, §V.B, definitions 5.1–5.2, eqs. 5.4–5.11; the construction is
// Panozzo et al. 2013, the paper's [26]).
//
// Symbols (paper 2, §V.B): q1, q2, q3 are the triangle's vertices, T_i (2×3, orthonormal rows)
// the tangent plane at vertex i (the plane orthogonal to the vertex normal), R_ij = Ort(T_j T_iᵀ)
// the 2×2 rotation that best maps T_i's basis onto T_j's, and E_ij per-edge 2×2 gauges chosen by
// eq. 5.11 so that the three edge interpolants Ψ_12, Ψ_23, Ψ_31 (eq. 5.10) agree inside the
// triangle. Ψ(λ) (eq. 5.9) blends them; on edge ij it reduces to a plane that depends only on
// T_i and T_j, so the plane field is continuous across triangles sharing the edge.
//
// Deviations from the paper, each for a stated reason:
//  - R_ij and E_ij are taken in SO(2) rather than O(2): a reflection would flip the sign of
//    row0 × row1 and with it the orientation of the interpolated normal.
//  - Eq. 5.11 sums ‖A_k − A_l‖; we sum the squares, which makes each alternating step a closed
//    form 2×2 Procrustes problem (the paper also solves it by alternating Procrustes steps).
#include <array>
#include <optional>

#include "collision/base/math.h"

namespace impetus {

using TangentFrame = Eigen::Matrix<double, 2, 3>;  // rows: a basis of a tangent plane

/// A converged Phong projection onto one triangle.
struct PhongHit {
  Vec3 lambda = Vec3::Zero();  // barycentric coordinates, each >= −1e-7, sum 1
  Vec3 point = Vec3::Zero();   // λ1 q1 + λ2 q2 + λ3 q3
  Vec3 normal = Vec3::UnitZ(); // unit normal of Ψ(λ), on the side of the vertex normals
  double residual = 0;         // |component of point − o tangent to Ψ(λ)| [m]
  int iterations = 0;          // Newton iterations
};

/// One triangle with its interpolated tangent-plane field (precomputed R_ij and E_ij).
class PhongTriangle {
 public:
  /// `q`: the vertices (CCW seen from the side the normals point to); `n`: unit vertex normals.
  PhongTriangle(const std::array<Vec3, 3>& q, const std::array<Vec3, 3>& n);

  /// Ψ(λ) of eq. 5.9 at barycentric coordinates λ (λ1 + λ2 + λ3 = 1).
  TangentFrame tangent_frame(const Vec3& lambda) const;
  /// Unit normal of the plane Ψ(λ), oriented like the vertex normals.
  Vec3 normal(const Vec3& lambda) const;
  Vec3 point(const Vec3& lambda) const {
    return lambda[0] * q_[0] + lambda[1] * q_[1] + lambda[2] * q_[2];
  }
  const Vec3& vertex(int i) const { return q_[i]; }

  /// Phong projection of `o` (definition 5.1): Newton's method on eq. 5.4 in (λ1, λ2), started
  /// at the foot of the perpendicular from `o` (clamped into the triangle), then at the centroid
  /// as in the paper. Returns nullopt when Newton does not converge to
  /// `tolerance` [m] within `max_iterations` or converges outside the triangle (eq. 5.6).
  std::optional<PhongHit> project(const Vec3& o, int max_iterations, double tolerance) const;

  /// |component of c − o tangent to Ψ| at the centroid c: the quantity the paper minimises to
  /// re-centre the search region when no projection is found (§V.C step 4b).
  double centroid_residual(const Vec3& o) const;

 private:
  std::optional<PhongHit> newton(const Vec3& o, const Vec3& start, int max_iterations,
                                 double tolerance) const;

  std::array<Vec3, 3> q_;
  std::array<TangentFrame, 3> t_;      // T_1, T_2, T_3
  std::array<Eigen::Matrix2d, 3> r_;   // R_12, R_23, R_31 (edge k joins vertex k and k + 1)
  std::array<Eigen::Matrix2d, 3> e_;   // E_12, E_23, E_31
  Vec3 face_normal_ = Vec3::UnitZ();
  Vec3 mean_normal_ = Vec3::UnitZ();   // orientation reference for normal()
};

/// Tangent frame of a unit normal: two orthonormal rows with row0 × row1 == n.
TangentFrame tangent_frame_of(const Vec3& n);

}  // namespace impetus
