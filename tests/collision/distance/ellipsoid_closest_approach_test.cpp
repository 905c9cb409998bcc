// Paper 1 (closest approach of two ellipsoids) and the ellipsoid–ellipsoid contact built on it.
// References independent of the code under test:
//  - spheres in closed form (d = r1 + r2);
//  - the Perram–Wertheim contact function: the ellipsoids centred r apart along n touch when
//    max_λ F(λ) = 1, F(λ) = λ(1−λ) rᵀ[(1−λ)A⁻¹ + λB⁻¹]⁻¹ r with A⁻¹ = R diag(radii²) Rᵀ, so
//    d = 1/sqrt(max_λ G(λ)) with G the same for the unit n; G is concave in λ and is maximised
//    here by golden-section search, in world coordinates;
//  - central finite differences of f(u) for the analytic f'(u);
//  - direct evaluation of both surface equations and gradients at the returned contact point;
//  - the closed-form support function of an ellipsoid, h(N) = sqrt(Nᵀ R diag(radii²) Rᵀ N);
//  - brute-force sampling of one surface against the other's quadratic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Cholesky>

#include "collision/narrowphase/contact_ellipsoid_ellipsoid.h"
#include "collision/distance/ellipsoid_closest_approach.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

class Sampler {
 public:
  explicit Sampler(std::uint64_t seed) : rng_(seed) {}
  double uniform(double lo = 0.0, double hi = 1.0) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  Quat rotation() {  // Shoemake's uniform random rotation
    double u1 = uniform();
    double u2 = 2.0 * kPi * uniform();
    double u3 = 2.0 * kPi * uniform();
    double s1 = std::sqrt(1.0 - u1);
    double s2 = std::sqrt(u1);
    return Quat(s2 * std::cos(u3), s1 * std::sin(u2), s1 * std::cos(u2), s2 * std::sin(u3));
  }
  // Coordinates drawn one per statement, x first (tests/random_draws.h).
  Vec3 vector(double lo, double hi) { return test::random_vector(rng_, lo, hi); }
  Vec3 direction() {
    double z = uniform(-1.0, 1.0);
    double phi = uniform(0.0, 2.0 * kPi);
    double rho = std::sqrt(std::max(0.0, 1.0 - z * z));
    return Vec3(rho * std::cos(phi), rho * std::sin(phi), z);
  }
  // Radii with largest/smallest = gamma, largest = `largest`, shuffled over the axes.
  Vec3 radii(double gamma, double largest) {
    double smallest = largest / gamma;
    Vec3 r(largest, uniform(smallest, largest), smallest);
    std::shuffle(r.data(), r.data() + 3, rng_);
    return r;
  }

 private:
  std::mt19937_64 rng_;
};

struct Pair {
  Vec3 ra, rb;
  Pose pa, pb;
};

// γ within each ellipsoid, largest radii ratio Γ between them, centres `distance` apart.
Pair random_pair(Sampler& s, double gamma, double big_gamma, double distance) {
  Pair p;
  bool a_small = s.uniform() < 0.5;
  p.ra = s.radii(gamma, a_small ? 1.0 : big_gamma);
  p.rb = s.radii(gamma, a_small ? big_gamma : 1.0);
  p.pa.position = s.vector(-5, 5);
  p.pa.orientation = s.rotation();
  p.pb.position = p.pa.position + distance * s.direction();
  p.pb.orientation = s.rotation();
  return p;
}

Mat3 inverse_shape_matrix(const Vec3& radii, const Quat& q) {  // A⁻¹ = R diag(radii²) Rᵀ
  Mat3 R = q.toRotationMatrix();
  return R * radii.cwiseProduct(radii).asDiagonal() * R.transpose();
}

// Perram–Wertheim touching distance along n = (pb − pa)/‖pb − pa‖ (see the file comment).
double perram_wertheim_distance(const Pair& p) {
  const Vec3 n = (p.pb.position - p.pa.position).normalized();
  const Mat3 Fa = inverse_shape_matrix(p.ra, p.pa.orientation);
  const Mat3 Fb = inverse_shape_matrix(p.rb, p.pb.orientation);
  auto G = [&](double l) {
    Mat3 S = (1.0 - l) * Fa + l * Fb;
    Vec3 y = S.ldlt().solve(n);
    return l * (1.0 - l) * n.dot(y);
  };
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = 0.0, b = 1.0;
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double gc = G(c), gd = G(d);
  for (int k = 0; k < 120; ++k) {
    if (gc > gd) {
      b = d; d = c; gd = gc; c = b - ratio * (b - a); gc = G(c);
    } else {
      a = c; c = d; gc = gd; d = a + ratio * (b - a); gd = G(d);
    }
  }
  return 1.0 / std::sqrt(std::max(gc, gd));
}

// e(x) = (x − c)ᵀ R diag(radii⁻²) Rᵀ (x − c), evaluated in the ellipsoid's own frame.
double quadric(const Vec3& radii, const Pose& pose, const Vec3& x) {
  Vec3 local = pose.inverse_apply(x);
  return local.cwiseQuotient(radii).squaredNorm();
}
Vec3 quadric_gradient(const Vec3& radii, const Pose& pose, const Vec3& x) {
  Vec3 local = pose.inverse_apply(x);
  return pose.rotate(2.0 * local.cwiseQuotient(radii.cwiseProduct(radii)));
}
double support(const Vec3& radii, const Quat& q, const Vec3& dir) {
  return std::sqrt(dir.dot(inverse_shape_matrix(radii, q) * dir));
}

ClosestApproachOptions with_method(ClosestApproachMethod m) {
  ClosestApproachOptions o;
  o.method = m;
  return o;
}

constexpr ClosestApproachMethod kAllMethods[] = {ClosestApproachMethod::NewtonBisection,
                                                 ClosestApproachMethod::FixedPoint,
                                                 ClosestApproachMethod::Steffensen};

TEST(EllipsoidClosestApproach, DerivativeMatchesFiniteDifferences) {
  Sampler s(1);
  for (int i = 0; i < 40; ++i) {
    double gamma = i < 20 ? 5.0 : 100.0;
    Vec3 ra = s.radii(gamma, 1.0);
    Vec3 rb = s.radii(gamma, 3.0);
    Mat3 R = s.rotation().toRotationMatrix();
    Vec3 n = s.direction();
    for (double u : {0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98}) {
      const double h = 1e-6;
      double fp = ellipsoid_closest_approach_equation(ra, rb, R, n, u + h).f;
      double fm = ellipsoid_closest_approach_equation(ra, rb, R, n, u - h).f;
      double fd = (fp - fm) / (2.0 * h);
      double df = ellipsoid_closest_approach_equation(ra, rb, R, n, u).df;
      EXPECT_NEAR(df, fd, 1e-5 * std::max(1.0, std::abs(fd))) << "gamma " << gamma << " u " << u;
    }
    // The bracket of the root: f(0) = nᵀE1n > 0 and f(1) = −nᵀE2n < 0.
    EXPECT_GT(ellipsoid_closest_approach_equation(ra, rb, R, n, 0.0).f, 0.0);
    EXPECT_LT(ellipsoid_closest_approach_equation(ra, rb, R, n, 1.0).f, 0.0);
  }
}

// f'(u) near the ends of (0, 1) and for elongated ellipsoids (γ up to 1000), where E_u is
// badly conditioned and f varies over orders of magnitude; also across u = 15/16, where the
// implementation switches between two algebraically equal forms of (E1 − E2) w. Reference:
// Richardson-extrapolated central differences of f with a step scaled to the distance to the
// nearer end (error O(h⁴)). At γ = 1000 E_u's condition number reaches ~1e7 and f' in doubles is
// good to ~1e-5 relative only (measured against a long-double evaluation, for the former code as
// for this one), and the differences of f are noisier still, hence the wider tolerance there.
TEST(EllipsoidClosestApproach, DerivativeMatchesFiniteDifferencesNearTheEnds) {
  Sampler s(11);
  auto f_at = [](const Vec3& ra, const Vec3& rb, const Mat3& R, const Vec3& n, double u) {
    return ellipsoid_closest_approach_equation(ra, rb, R, n, u).f;
  };
  for (int i = 0; i < 60; ++i) {
    double gamma = i < 20 ? 10.0 : (i < 40 ? 100.0 : 1000.0);
    Vec3 ra = s.radii(gamma, i % 2 == 0 ? 1.0 : 3.0);
    Vec3 rb = s.radii(gamma, i % 2 == 0 ? 3.0 : 1.0);
    Mat3 R = s.rotation().toRotationMatrix();
    Vec3 n = s.direction();
    for (double u : {1e-3, 0.01, 0.5, 0.93, 0.9375, 0.94, 0.99, 0.999}) {
      const double h = 1e-3 * std::min(u, 1.0 - u);
      auto central = [&](double step) {
        return (f_at(ra, rb, R, n, u + step) - f_at(ra, rb, R, n, u - step)) / (2.0 * step);
      };
      double fd = (4.0 * central(0.5 * h) - central(h)) / 3.0;
      double df = ellipsoid_closest_approach_equation(ra, rb, R, n, u).df;
      const double tolerance = gamma < 1000.0 ? 1e-6 : 1e-3;
      EXPECT_NEAR(df, fd, tolerance * std::abs(fd)) << "gamma " << gamma << " u " << u;
    }
    // Both sides of the switch at u = 15/16 give the same f' (f' is smooth there).
    double below = ellipsoid_closest_approach_equation(ra, rb, R, n, 0.9375 - 1e-12).df;
    double above = ellipsoid_closest_approach_equation(ra, rb, R, n, 0.9375 + 1e-12).df;
    const double tolerance = gamma < 1000.0 ? 1e-8 : 1e-5;
    EXPECT_NEAR(below, above, tolerance * std::abs(above)) << "gamma " << gamma;
  }
}

TEST(EllipsoidClosestApproach, SpheresHaveClosedForm) {
  Sampler s(2);
  for (ClosestApproachMethod m : kAllMethods) {
    for (int i = 0; i < 20; ++i) {
      double r1 = s.uniform(0.1, 2.0), r2 = s.uniform(0.1, 2.0);
      Pose pa{Vec3(s.uniform(-3, 3), 0.5, -1.0), s.rotation()};
      Vec3 n = s.direction();
      Pose pb{pa.position + s.uniform(0.1, 5.0) * n, s.rotation()};
      ClosestApproachResult r = ellipsoid_closest_approach(Vec3::Constant(r1), pa,
                                                           Vec3::Constant(r2), pb, with_method(m));
      ASSERT_TRUE(r.converged);
      EXPECT_NEAR(r.distance, r1 + r2, 1e-12 * (r1 + r2));
      EXPECT_NEAR((r.contact_point - (pa.position + r1 * n)).norm(), 0.0, 1e-12);
      EXPECT_NEAR(r.normal.dot(n), 1.0, 1e-12);
      // Eq. 4: ∇e1 = ((u−1)/u) ∇e2 with gradient magnitudes 2/r1 and 2/r2 → u = r1/(r1 + r2).
      EXPECT_NEAR(r.u, r1 / (r1 + r2), 1e-10);
      // For spheres the fixed-point map G(u) = r1/(r1 + r2) is constant: one step, one check.
      EXPECT_LE(r.iterations, m == ClosestApproachMethod::NewtonBisection ? 15 : 2);
    }
  }
}

TEST(EllipsoidClosestApproach, MatchesPerramWertheimUpToGamma1000) {
  Sampler s(3);
  for (double gamma : {1.5, 5.0, 20.0, 100.0, 1000.0}) {
    double worst = 0;
    for (int i = 0; i < 60; ++i) {
      Pair p = random_pair(s, gamma, 3.0, s.uniform(0.5, 6.0));
      double ref = perram_wertheim_distance(p);
      ClosestApproachResult r = ellipsoid_closest_approach(p.ra, p.pa, p.rb, p.pb);
      ASSERT_TRUE(r.converged) << "gamma " << gamma << " pair " << i;
      EXPECT_LT(r.iterations, 100);
      worst = std::max(worst, std::abs(r.distance - ref) / ref);
      // The eq. 8 / eq. 9 bracket holds the reference (rounding allowance only).
      EXPECT_LE(r.distance_lower, ref * (1 + 1e-9));
      EXPECT_GE(r.distance_upper, ref * (1 - 1e-9));
      EXPECT_EQ(r.overlap, (p.pb.position - p.pa.position).norm() < r.distance);
    }
    EXPECT_LT(worst, gamma < 500 ? 1e-9 : 1e-7) << "gamma " << gamma;
  }
}

TEST(EllipsoidClosestApproach, ContactPointOnBothSurfacesWithOpposedGradients) {
  Sampler s(4);
  for (double gamma : {2.0, 5.0, 50.0, 1000.0}) {
    for (int i = 0; i < 50; ++i) {
      Pair p = random_pair(s, gamma, 3.0, s.uniform(0.5, 6.0));
      ClosestApproachResult r = ellipsoid_closest_approach(p.ra, p.pa, p.rb, p.pb);
      ASSERT_TRUE(r.converged);
      const Vec3 n = (p.pb.position - p.pa.position).normalized();
      EXPECT_NEAR((r.direction - n).norm(), 0.0, 1e-12);
      Pose touching_b{p.pa.position + r.distance * n, p.pb.orientation};
      const Vec3& x = r.contact_point;
      EXPECT_NEAR(quadric(p.ra, p.pa, x), 1.0, 1e-10);
      EXPECT_NEAR(quadric(p.rb, touching_b, x), 1.0, 1e-7);
      Vec3 ga = quadric_gradient(p.ra, p.pa, x).normalized();
      Vec3 gb = quadric_gradient(p.rb, touching_b, x).normalized();
      EXPECT_NEAR(ga.dot(r.normal), 1.0, 1e-10);
      EXPECT_NEAR(gb.dot(r.normal), -1.0, 1e-7);
      EXPECT_GT(r.normal.dot(n), 0.0);
      EXPECT_NEAR(r.support_a, support(p.ra, p.pa.orientation, r.normal), 1e-9);
      EXPECT_NEAR(r.support_b, support(p.rb, p.pb.orientation, r.normal), 1e-6);
      EXPECT_NEAR(r.distance * n.dot(r.normal), r.support_a + r.support_b, 1e-9 * r.distance);
    }
  }
}

TEST(EllipsoidClosestApproach, BruteForceSamplingAgreesAtOnePercent) {
  // Dense sampling of b's surface: at 1.01·d no sample is inside a, at 0.99·d some is.
  Sampler s(5);
  for (int i = 0; i < 6; ++i) {
    Pair p = random_pair(s, 5.0, 3.0, 4.0);
    ClosestApproachResult r = ellipsoid_closest_approach(p.ra, p.pa, p.rb, p.pb);
    const Vec3 n = (p.pb.position - p.pa.position).normalized();
    for (double scale : {0.99, 1.01}) {
      Pose pb{p.pa.position + scale * r.distance * n, p.pb.orientation};
      double min_q = 1e300;
      const int kTheta = 300, kPhi = 600;
      for (int it = 0; it <= kTheta; ++it) {
        double theta = kPi * it / kTheta;
        for (int ip = 0; ip < kPhi; ++ip) {
          double phi = 2.0 * kPi * ip / kPhi;
          Vec3 local(p.rb.x() * std::sin(theta) * std::cos(phi),
                     p.rb.y() * std::sin(theta) * std::sin(phi), p.rb.z() * std::cos(theta));
          min_q = std::min(min_q, quadric(p.ra, p.pa, pb.apply(local)));
        }
      }
      if (scale < 1) {
        EXPECT_LT(min_q, 1.0) << "pair " << i;
      } else {
        EXPECT_GT(min_q, 1.0) << "pair " << i;
      }
    }
  }
}

TEST(EllipsoidClosestApproach, SwappingTheEllipsoidsGivesTheSameDistance) {
  Sampler s(6);
  for (int i = 0; i < 100; ++i) {
    Pair p = random_pair(s, i < 50 ? 5.0 : 300.0, 3.0, s.uniform(0.5, 6.0));
    ClosestApproachResult ab = ellipsoid_closest_approach(p.ra, p.pa, p.rb, p.pb);
    ClosestApproachResult ba = ellipsoid_closest_approach(p.rb, p.pb, p.ra, p.pa);
    ASSERT_TRUE(ab.converged && ba.converged);
    EXPECT_NEAR(ab.distance, ba.distance, 1e-10 * ab.distance);
    EXPECT_NEAR(ab.normal.dot(ba.normal), -1.0, 1e-8);
    // The swapped touching configuration (b fixed, a at pb − d·n) is the original one shifted.
    Vec3 shift = p.pa.position + ab.distance * ab.direction - p.pb.position;
    EXPECT_NEAR((ba.contact_point + shift - ab.contact_point).norm(), 0.0, 1e-8);
  }
}

TEST(EllipsoidClosestApproach, InvariantUnderACommonRigidMotion) {
  Sampler s(7);
  for (int i = 0; i < 100; ++i) {
    Pair p = random_pair(s, 20.0, 3.0, s.uniform(0.5, 6.0));
    Pose t{s.vector(-50, 50), s.rotation()};
    ClosestApproachResult r0 = ellipsoid_closest_approach(p.ra, p.pa, p.rb, p.pb);
    ClosestApproachResult r1 = ellipsoid_closest_approach(p.ra, t * p.pa, p.rb, t * p.pb);
    EXPECT_NEAR(r0.distance, r1.distance, 1e-11 * r0.distance);
    EXPECT_NEAR((t.apply(r0.contact_point) - r1.contact_point).norm(), 0.0, 1e-9);
    EXPECT_NEAR((t.rotate(r0.normal) - r1.normal).norm(), 0.0, 1e-9);
  }
}

TEST(EllipsoidClosestApproach, AllMethodsAgreeWhereTheyConverge) {
  Sampler s(8);
  int converged[3] = {0, 0, 0};
  for (int i = 0; i < 300; ++i) {
    Pair p = random_pair(s, 5.0, 3.0, 3.0);
    double ref = perram_wertheim_distance(p);
    for (int m = 0; m < 3; ++m) {
      ClosestApproachOptions o = with_method(kAllMethods[m]);
      o.tolerance = 1e-13;
      o.max_iterations = 2000;
      ClosestApproachResult r = ellipsoid_closest_approach(p.ra, p.pa, p.rb, p.pb, o);
      if (!r.converged) continue;
      ++converged[m];
      EXPECT_NEAR(r.distance, ref, 1e-9 * ref) << "method " << m << " pair " << i;
    }
  }
  // At γ = 5 every method converges given enough iterations.
  for (int m = 0; m < 3; ++m) EXPECT_EQ(converged[m], 300) << "method " << m;
}

TEST(EllipsoidClosestApproach, FixedPointStallsForElongatedPairsWhereNewtonDoesNot) {
  // Paper 1, Fig. 2: at 100 iterations the fixed-point iteration fails beyond γ ≈ 7, Newton
  // with bisection never does.
  Sampler s(9);
  int fixed_point_failures = 0;
  for (int i = 0; i < 300; ++i) {
    Pair p = random_pair(s, 50.0, 3.0, 3.0);
    ClosestApproachResult fp = ellipsoid_closest_approach(
        p.ra, p.pa, p.rb, p.pb, with_method(ClosestApproachMethod::FixedPoint));
    ClosestApproachResult nb = ellipsoid_closest_approach(p.ra, p.pa, p.rb, p.pb);
    EXPECT_TRUE(nb.converged);
    if (!fp.converged) {
      ++fixed_point_failures;
      EXPECT_EQ(fp.iterations, 100);
      // Even unconverged, the final u still brackets the true distance.
      EXPECT_LE(fp.distance_lower, nb.distance * (1 + 1e-12));
      EXPECT_GE(fp.distance_upper, nb.distance * (1 - 1e-12));
    }
  }
  EXPECT_GT(fixed_point_failures, 0);
}

TEST(EllipsoidClosestApproach, ContactGapRuleStopsEarlierWithABoundedError) {
  Sampler s(10);
  for (ClosestApproachMethod m : kAllMethods) {
    for (int i = 0; i < 200; ++i) {
      Pair p = random_pair(s, 5.0, 3.0, 3.0);
      double ref = perram_wertheim_distance(p);
      ClosestApproachOptions gap = with_method(m);
      gap.stop = ClosestApproachStop::ContactGap;
      gap.tolerance = 1e-2;
      ClosestApproachResult coarse = ellipsoid_closest_approach(p.ra, p.pa, p.rb, p.pb, gap);
      ClosestApproachResult fine =
          ellipsoid_closest_approach(p.ra, p.pa, p.rb, p.pb, with_method(m));
      ASSERT_TRUE(coarse.converged && fine.converged);
      EXPECT_LE(coarse.iterations, fine.iterations);
      double bracket = coarse.distance_upper - coarse.distance_lower;
      EXPECT_LE(std::abs(coarse.distance - ref), bracket + 1e-12);
      // The gap (1−u)‖w‖|d1 − d2| = (‖x − pa‖/d1)|d1 − d2| met the rule (d1 ≤ upper end).
      double r_min = std::min(p.ra.minCoeff(), p.rb.minCoeff());
      double x_norm = (coarse.contact_point - p.pa.position).norm();
      EXPECT_LE(x_norm / coarse.distance_upper * bracket, 1e-2 * r_min * (1 + 1e-9));
    }
  }
}

TEST(EllipsoidClosestApproach, CoincidentCentresUseTheShortestAxisOfA) {
  Pose pa{Vec3(1, 2, 3), Quat(Eigen::AngleAxisd(0.3, Vec3(1, 1, 0).normalized()))};
  Vec3 ra(1.0, 0.2, 0.5), rb(0.3, 0.3, 0.3);
  ClosestApproachResult r = ellipsoid_closest_approach(ra, pa, rb, pa);
  ASSERT_TRUE(r.converged);
  EXPECT_TRUE(r.overlap);
  EXPECT_NEAR(std::abs(r.direction.dot(pa.rotate(Vec3::UnitY()))), 1.0, 1e-12);
  EXPECT_NEAR(r.distance, 0.2 + 0.3, 1e-12);
}

// ---- contact generation ------------------------------------------------------------------

TEST(ContactEllipsoidEllipsoid, SpheresGiveTheExactSeparation) {
  Sampler s(11);
  for (int i = 0; i < 40; ++i) {
    double r1 = s.uniform(0.2, 1.0), r2 = s.uniform(0.2, 1.0);
    Vec3 n = s.direction();
    double gap = s.uniform(-0.3, 0.3);
    Pose pa{Vec3(1, -2, 0.5), s.rotation()};
    Pose pb{pa.position + (r1 + r2 + gap) * n, s.rotation()};
    Manifold m;
    bool hit = collide_ellipsoid_ellipsoid(Shape::ellipsoid(Vec3::Constant(r1)), pa,
                                           Shape::ellipsoid(Vec3::Constant(r2)), pb, 0.1, m);
    ASSERT_EQ(hit, gap < 0.1);
    if (!hit) {
      EXPECT_EQ(m.count, 0);
      continue;
    }
    ASSERT_EQ(m.count, 1);
    const ContactPoint& c = m.points[0];
    EXPECT_NEAR(c.separation, gap, 1e-12);
    EXPECT_NEAR((c.normal - n).norm(), 0.0, 1e-12);
    EXPECT_NEAR((c.point_a - (pa.position + r1 * n)).norm(), 0.0, 1e-12);
    EXPECT_NEAR((c.point_b - (pb.position - r2 * n)).norm(), 0.0, 1e-12);
  }
}

TEST(ContactEllipsoidEllipsoid, SeparationSignSizeAndGeometry) {
  Sampler s(12);
  int overlapping = 0, separated = 0;
  for (int i = 0; i < 400; ++i) {
    Pair p = random_pair(s, i % 2 ? 3.0 : 20.0, 2.0, 1.0);
    // Put b at a random fraction of the Perram–Wertheim touching distance.
    Vec3 n = (p.pb.position - p.pa.position).normalized();
    double touch = perram_wertheim_distance(p);
    double delta = s.uniform(0.6, 1.3) * touch;
    p.pb.position = p.pa.position + delta * n;
    Manifold m;
    const double margin = 1e9;  // report every pair
    ASSERT_TRUE(collide_ellipsoid_ellipsoid(Shape::ellipsoid(p.ra), p.pa, Shape::ellipsoid(p.rb),
                                            p.pb, margin, m));
    ASSERT_EQ(m.count, 1);
    const ContactPoint& c = m.points[0];
    bool overlap = delta < touch;
    (overlap ? overlapping : separated)++;
    EXPECT_EQ(c.separation < 0, overlap) << "pair " << i;
    EXPECT_NEAR(c.normal.norm(), 1.0, 1e-12);
    EXPECT_GT(c.normal.dot(n), 0.0);
    EXPECT_NEAR(quadric(p.ra, p.pa, c.point_a), 1.0, 1e-9);
    EXPECT_NEAR(quadric(p.rb, p.pb, c.point_b), 1.0, 1e-7);
    EXPECT_NEAR((c.point_b - c.point_a).dot(c.normal), c.separation, 1e-9);
    // The gap between the supporting slabs of a and b along the normal (closed form).
    double slabs = c.normal.dot(p.pb.position - p.pa.position) -
                   support(p.ra, p.pa.orientation, c.normal) -
                   support(p.rb, p.pb.orientation, c.normal);
    EXPECT_NEAR(c.separation, slabs, 1e-7);
    // Its size: the centre-line penetration projected on the normal.
    EXPECT_LE(std::abs(c.separation), std::abs(delta - touch) + 1e-9);
  }
  EXPECT_GT(overlapping, 100);
  EXPECT_GT(separated, 50);
}

TEST(ContactEllipsoidEllipsoid, MarginDecidesSpeculativeContactsAndEarlyOutIsConservative) {
  Sampler s(13);
  int reported = 0, skipped = 0;
  for (int i = 0; i < 400; ++i) {
    Pair p = random_pair(s, 4.0, 2.0, 1.0);
    Vec3 n = (p.pb.position - p.pa.position).normalized();
    double touch = perram_wertheim_distance(p);
    p.pb.position = p.pa.position + s.uniform(1.0, 2.5) * touch * n;
    double margin = s.uniform(0.0, 0.5);
    // Separation computed without the contact function's early out.
    ClosestApproachResult r = ellipsoid_closest_approach(p.ra, p.pa, p.rb, p.pb);
    double delta = (p.pb.position - p.pa.position).norm();
    double separation = (delta - r.distance) * r.direction.dot(r.normal);
    Manifold m;
    m.add(ContactPoint{});  // an earlier point must stay untouched
    bool hit = collide_ellipsoid_ellipsoid(Shape::ellipsoid(p.ra), p.pa, Shape::ellipsoid(p.rb),
                                           p.pb, margin, m);
    EXPECT_EQ(hit, separation < margin) << "pair " << i;
    EXPECT_EQ(m.count, hit ? 2 : 1);
    if (hit) {
      ++reported;
      EXPECT_GE(m.points[1].separation, 0.0);
    } else {
      ++skipped;
    }
  }
  EXPECT_GT(reported, 50);
  EXPECT_GT(skipped, 50);
}

}  // namespace
}  // namespace impetus
