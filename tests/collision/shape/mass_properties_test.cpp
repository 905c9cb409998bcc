#include "collision/shape/mass_properties.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <random>
#include <utility>

#include "collision/shape/convex_hull.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

constexpr double kDensity = 750.0;
constexpr double kPiRef = std::numbers::pi;

void expect_mat_near(const Mat3& a, const Mat3& b, double tol) {
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(a(r, c), b(r, c), tol) << "(" << r << "," << c << ")";
  }
}

void expect_vec_near(const Vec3& a, const Vec3& b, double tol) {
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(a[k], b[k], tol) << "[" << k << "]";
}

// The principal frame must diagonalise the tensor, be orthonormal and right-handed, with the
// moments ascending.
void check_principal(const MassProperties& mp) {
  const Mat3& a = mp.principal_axes;
  const double scale = std::max(1e-300, mp.inertia.norm());
  expect_mat_near(a.transpose() * a, Mat3::Identity(), 1e-12);
  EXPECT_NEAR(a.determinant(), 1.0, 1e-12);
  Mat3 d = a.transpose() * mp.inertia * a;
  expect_mat_near(d, Mat3(mp.principal_moments.asDiagonal()), 1e-12 * scale);
  EXPECT_LE(mp.principal_moments[0], mp.principal_moments[1]);
  EXPECT_LE(mp.principal_moments[1], mp.principal_moments[2]);
}

TEST(MassProperties, Sphere) {
  const double r = 0.7;
  MassProperties mp = compute_mass_properties(Shape::sphere(r), kDensity);
  const double volume = 4.0 / 3.0 * kPiRef * std::pow(r, 3);
  const double m = kDensity * volume;
  EXPECT_NEAR(mp.volume, volume, 1e-14);
  EXPECT_NEAR(mp.mass, m, 1e-10);
  expect_vec_near(mp.center_of_mass, Vec3::Zero(), 0);
  expect_mat_near(mp.inertia, Mat3::Identity() * (2.0 / 5.0 * m * r * r), 1e-10);
  check_principal(mp);
}

TEST(MassProperties, Box) {
  const Vec3 half(0.3, 0.5, 1.1);
  const Vec3 side = 2 * half;  // full side lengths
  MassProperties mp = compute_mass_properties(Shape::box(half), kDensity);
  const double m = kDensity * side.prod();
  EXPECT_NEAR(mp.volume, side.prod(), 1e-14);
  const Vec3 diag(m * (side.y() * side.y() + side.z() * side.z()) / 12,
                  m * (side.x() * side.x() + side.z() * side.z()) / 12,
                  m * (side.x() * side.x() + side.y() * side.y()) / 12);
  expect_mat_near(mp.inertia, Mat3(diag.asDiagonal()), 1e-10);
  // Here I_zz < I_yy < I_xx: ascending moments pair with the axes z, y, x.
  expect_vec_near(mp.principal_moments, Vec3(diag.z(), diag.y(), diag.x()), 1e-10);
  check_principal(mp);
  Mat3 reversed;
  reversed << 0, 0, 1, 0, 1, 0, 1, 0, 0;
  expect_mat_near(mp.principal_axes.cwiseAbs(), reversed, 1e-12);
}

TEST(MassProperties, Ellipsoid) {
  const double a = 0.3, b = 0.6, c = 1.2;
  MassProperties mp = compute_mass_properties(Shape::ellipsoid(Vec3(a, b, c)), kDensity);
  const double volume = 4.0 / 3.0 * kPiRef * a * b * c;
  const double m = kDensity * volume;
  EXPECT_NEAR(mp.volume, volume, 1e-14);
  const Vec3 diag(m * (b * b + c * c) / 5, m * (a * a + c * c) / 5, m * (a * a + b * b) / 5);
  expect_mat_near(mp.inertia, Mat3(diag.asDiagonal()), 1e-10);
  check_principal(mp);
}

// Capsule reference 1: the solid cut into thin discs along z. A disc of radius ρ and mass dm
// has moments dm ρ²/2 about z and dm (ρ²/4 + z²) about x through the capsule centre.
// Composite Simpson on the three smooth pieces (cap, cylinder, cap).
struct Moments {
  double volume, izz_per_density, ixx_per_density;
};

Moments capsule_by_slices(double r, double h) {
  auto rho2 = [&](double z) {
    const double over = std::abs(z) - h;
    return over <= 0 ? r * r : std::max(0.0, r * r - over * over);
  };
  Moments out{0, 0, 0};
  const double pieces[3][2] = {{-h - r, -h}, {-h, h}, {h, h + r}};
  const int n = 2000;  // even
  for (const auto& piece : pieces) {
    const double z0 = piece[0], dz = (piece[1] - piece[0]) / n;
    if (dz == 0) continue;
    for (int i = 0; i <= n; ++i) {
      const double z = z0 + i * dz;
      const double w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
      const double area = kPiRef * rho2(z);
      out.volume += w * dz / 3 * area;
      out.izz_per_density += w * dz / 3 * area * rho2(z) / 2;
      out.ixx_per_density += w * dz / 3 * area * (rho2(z) / 4 + z * z);
    }
  }
  return out;
}

TEST(MassProperties, CapsuleAgainstSliceIntegration) {
  for (const auto& [r, h] : {std::pair{0.4, 0.7}, std::pair{0.25, 2.0}, std::pair{1.0, 0.1}}) {
    MassProperties mp = compute_mass_properties(Shape::capsule(r, h), kDensity);
    const Moments ref = capsule_by_slices(r, h);
    EXPECT_NEAR(mp.volume, ref.volume, 1e-10 * ref.volume);
    EXPECT_NEAR(mp.mass, kDensity * ref.volume, 1e-10 * kDensity * ref.volume);
    const double izz = kDensity * ref.izz_per_density, ixx = kDensity * ref.ixx_per_density;
    expect_mat_near(mp.inertia, Mat3(Vec3(ixx, ixx, izz).asDiagonal()), 1e-9 * ixx);
    expect_vec_near(mp.center_of_mass, Vec3::Zero(), 0);
    check_principal(mp);
  }
}

// Capsule reference 2: midpoint voxels of the indicator function in 3D (coarse but independent
// of any decomposition).
TEST(MassProperties, CapsuleAgainstVoxelIntegration) {
  const double r = 0.4, h = 0.7;
  const int n = 120;
  const Vec3 lo(-r, -r, -h - r), hi(r, r, h + r);
  const Vec3 cell = (hi - lo) / n;
  const double dv = cell.prod();
  double volume = 0, ixx = 0, izz = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int k = 0; k < n; ++k) {
        const Vec3 p = lo + Vec3(i + 0.5, j + 0.5, k + 0.5).cwiseProduct(cell);
        const double zc = std::clamp(p.z(), -h, h);
        if ((p - Vec3(0, 0, zc)).squaredNorm() > r * r) continue;
        volume += dv;
        ixx += dv * (p.y() * p.y() + p.z() * p.z());
        izz += dv * (p.x() * p.x() + p.y() * p.y());
      }
    }
  }
  MassProperties mp = compute_mass_properties(Shape::capsule(r, h), 1.0);
  EXPECT_NEAR(mp.volume, volume, 5e-3 * volume);
  EXPECT_NEAR(mp.inertia(0, 0), ixx, 5e-3 * ixx);
  EXPECT_NEAR(mp.inertia(1, 1), ixx, 5e-3 * ixx);
  EXPECT_NEAR(mp.inertia(2, 2), izz, 5e-3 * izz);
}

TEST(MassProperties, CapsuleWithoutSegmentIsASphere) {
  MassProperties c = compute_mass_properties(Shape::capsule(0.6, 0.0), kDensity);
  MassProperties s = compute_mass_properties(Shape::sphere(0.6), kDensity);
  EXPECT_NEAR(c.volume, s.volume, 1e-14);
  expect_mat_near(c.inertia, s.inertia, 1e-10);
}

TEST(MassProperties, HullOfBoxCornersEqualsTheBox) {
  const Vec3 half(0.2, 0.9, 0.45);
  for (const Vec3& center : {Vec3(0, 0, 0), Vec3(3.0, -1.25, 0.5)}) {
    std::vector<Vec3> corners;
    for (int k = 0; k < 8; ++k) {
      corners.push_back(center + Vec3(k & 1 ? half.x() : -half.x(), k & 2 ? half.y() : -half.y(),
                                      k & 4 ? half.z() : -half.z()));
    }
    auto hull = std::make_shared<const ConvexHull>(*build_convex_hull(corners, nullptr));
    MassProperties h = compute_mass_properties(Shape::convex(hull), kDensity);
    MassProperties b = compute_mass_properties(Shape::box(half), kDensity);
    EXPECT_NEAR(h.volume, b.volume, 1e-14);
    EXPECT_NEAR(h.mass, b.mass, 1e-13 * b.mass);
    expect_vec_near(h.center_of_mass, center, 1e-14);
    expect_mat_near(h.inertia, b.inertia, 1e-13 * b.inertia.norm());
    expect_vec_near(h.principal_moments, b.principal_moments, 1e-13 * b.inertia.norm());
    check_principal(h);
  }
  // box_hull is the same solid.
  auto bh = std::make_shared<const ConvexHull>(box_hull(half));
  MassProperties h = compute_mass_properties(Shape::convex(bh), kDensity);
  MassProperties b = compute_mass_properties(Shape::box(half), kDensity);
  EXPECT_NEAR(h.volume, b.volume, 1e-14);
  expect_mat_near(h.inertia, b.inertia, 1e-11);
}

TEST(MassProperties, HullOfDenseSphereSamplingApproachesTheSphere) {
  // 2000 points of a Fibonacci lattice on the unit sphere: the inscribed polytope loses about
  // 3× the mean sagitta (≈ 1e-3 here) of the volume; stay within 0.5 %.
  const int n = 2000;
  const double golden = kPiRef * (3 - std::sqrt(5.0));
  std::vector<Vec3> points;
  for (int i = 0; i < n; ++i) {
    const double z = 1 - (2.0 * i + 1) / n;
    const double rho = std::sqrt(1 - z * z);
    points.emplace_back(rho * std::cos(golden * i), rho * std::sin(golden * i), z);
  }
  auto hull = std::make_shared<const ConvexHull>(*build_convex_hull(points, nullptr));
  EXPECT_EQ(hull->vertices.size(), static_cast<std::size_t>(n));
  MassProperties mp = compute_mass_properties(Shape::convex(hull), 1.0);
  const double volume = 4.0 / 3.0 * kPiRef;
  EXPECT_LT(mp.volume, volume);
  EXPECT_GT(mp.volume, 0.995 * volume);
  expect_vec_near(mp.center_of_mass, Vec3::Zero(), 1e-3);
  const double i_sphere = 0.4 * mp.mass;  // 2/5 m r² for the hull's own mass
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mp.inertia(k, k), i_sphere, 0.01 * i_sphere);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(mp.principal_moments[k], i_sphere, 0.01 * i_sphere);
  EXPECT_NEAR(mp.inertia(0, 1), 0, 1e-3 * i_sphere);
  check_principal(mp);
}

// A prism over a CCW polygon (seen from +z), closed, outward; `fan` triangulates the caps.
TriangleMesh prism(const std::vector<Eigen::Vector2d>& polygon,
                   const std::vector<std::array<int, 3>>& fan, double z0, double z1) {
  TriangleMesh m;
  const int n = static_cast<int>(polygon.size());
  for (const Eigen::Vector2d& p : polygon) m.vertices.emplace_back(p.x(), p.y(), z0);
  for (const Eigen::Vector2d& p : polygon) m.vertices.emplace_back(p.x(), p.y(), z1);
  for (const std::array<int, 3>& t : fan) {
    m.triangles.push_back({n + t[0], n + t[1], n + t[2]});  // top, +z
    m.triangles.push_back({t[2], t[1], t[0]});              // bottom, −z
  }
  for (int i = 0; i < n; ++i) {
    const int j = (i + 1) % n;
    m.triangles.push_back({i, j, n + j});
    m.triangles.push_back({i, n + j, n + i});
  }
  return m;
}

// L-shaped (non-convex) prism: [0,2]×[0,1] ∪ [0,1]×[1,2] in xy, z ∈ [−0.5, 0.25].
TriangleMesh l_prism() {
  return prism({{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}},
               {{3, 4, 5}, {3, 5, 0}, {3, 0, 1}, {3, 1, 2}}, -0.5, 0.25);
}

// Reference for the L prism: two boxes combined with the parallel-axis theorem.
MassProperties l_prism_reference(double density) {
  struct Block {
    Vec3 lo, hi;
  };
  const Block blocks[2] = {{Vec3(0, 0, -0.5), Vec3(2, 1, 0.25)},
                           {Vec3(0, 1, -0.5), Vec3(1, 2, 0.25)}};
  MassProperties ref;
  Vec3 weighted = Vec3::Zero();
  for (const Block& b : blocks) {
    const Vec3 s = b.hi - b.lo;
    ref.mass += density * s.prod();
    ref.volume += s.prod();
    weighted += density * s.prod() * 0.5 * (b.lo + b.hi);
  }
  ref.center_of_mass = weighted / ref.mass;
  for (const Block& b : blocks) {
    const Vec3 s = b.hi - b.lo;
    const double m = density * s.prod();
    Mat3 own = Mat3::Zero();
    own(0, 0) = m * (s.y() * s.y() + s.z() * s.z()) / 12;
    own(1, 1) = m * (s.x() * s.x() + s.z() * s.z()) / 12;
    own(2, 2) = m * (s.x() * s.x() + s.y() * s.y()) / 12;
    const Vec3 d = 0.5 * (b.lo + b.hi) - ref.center_of_mass;
    ref.inertia += own + m * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  }
  return ref;
}

TEST(MassProperties, NonConvexMeshMatchesCompositeOfBoxes) {
  auto mesh = std::make_shared<TriangleMesh>(l_prism());
  ASSERT_TRUE(mesh->is_closed());
  MassProperties mp = compute_mass_properties(Shape::triangle_mesh(mesh), kDensity);
  MassProperties ref = l_prism_reference(kDensity);
  EXPECT_NEAR(mp.volume, ref.volume, 1e-13);
  EXPECT_NEAR(mp.mass, ref.mass, 1e-10);
  expect_vec_near(mp.center_of_mass, ref.center_of_mass, 1e-13);
  expect_mat_near(mp.inertia, ref.inertia, 1e-10);
  EXPECT_NE(mp.inertia(0, 1), 0);  // a genuine product of inertia
  check_principal(mp);

  // Wound inward, the same mesh describes the same solid.
  TriangleMesh flipped = *mesh;
  for (std::array<int, 3>& t : flipped.triangles) std::swap(t[1], t[2]);
  MassProperties mf = compute_mass_properties(
      Shape::triangle_mesh(std::make_shared<TriangleMesh>(flipped)), kDensity);
  EXPECT_NEAR(mf.volume, ref.volume, 1e-13);
  expect_mat_near(mf.inertia, ref.inertia, 1e-10);
}

TEST(MassProperties, RigidTransformShiftsComAndRotatesInertia) {
  const TriangleMesh base = l_prism();
  MassProperties mp0 =
      compute_mass_properties(Shape::triangle_mesh(std::make_shared<TriangleMesh>(base)), kDensity);
  std::mt19937_64 rng(31);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int trial = 0; trial < 5; ++trial) {
    const Mat3 r = test::draw_quat(g, rng).normalized().toRotationMatrix();
    const Vec3 t = 50 * test::draw_vec3(g, rng);
    TriangleMesh moved = base;
    for (Vec3& v : moved.vertices) v = r * v + t;
    MassProperties mp = compute_mass_properties(
        Shape::triangle_mesh(std::make_shared<TriangleMesh>(moved)), kDensity);
    EXPECT_NEAR(mp.volume, mp0.volume, 1e-11);
    expect_vec_near(mp.center_of_mass, r * mp0.center_of_mass + t, 1e-11);
    const Mat3 rotated = r * mp0.inertia * r.transpose();
    expect_mat_near(mp.inertia, rotated, 1e-9);
    expect_vec_near(mp.principal_moments, mp0.principal_moments, 1e-9);
    check_principal(mp);
    // Parallel-axis theorem: shifted to the frame origin, the computed COM tensor equals the
    // composite-of-boxes reference shifted the same way.
    MassProperties ref = l_prism_reference(kDensity);
    const Vec3 c = r * ref.center_of_mass + t;
    const Mat3 about_origin_ref = r * ref.inertia * r.transpose() +
                                  ref.mass * (c.squaredNorm() * Mat3::Identity() - c * c.transpose());
    const Mat3 about_origin = mp.inertia + mp.mass * (mp.center_of_mass.squaredNorm() *
                                                          Mat3::Identity() -
                                                      mp.center_of_mass *
                                                          mp.center_of_mass.transpose());
    expect_mat_near(about_origin, about_origin_ref, 1e-9 * about_origin_ref.norm());
  }
}

TEST(MassProperties, RegularTetrahedron) {
  // Edge a: volume a³/(6√2); inertia about the centroid m a²/20 about every axis.
  const double a = 1.3;
  std::vector<Vec3> v = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};  // edge 2√2
  const double scale = a / (2 * std::sqrt(2.0));
  const Vec3 shift(0.3, -0.7, 2.0);
  auto mesh = std::make_shared<TriangleMesh>();
  for (const Vec3& p : v) mesh->vertices.push_back(scale * p + shift);
  mesh->triangles = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
  // Make the winding outward whatever the vertex order above produced.
  const Vec3 n = (mesh->vertices[1] - mesh->vertices[0]).cross(mesh->vertices[2] - mesh->vertices[0]);
  if (n.dot(mesh->vertices[0] - shift) < 0) {
    for (std::array<int, 3>& t : mesh->triangles) std::swap(t[1], t[2]);
  }
  ASSERT_TRUE(mesh->is_closed());
  MassProperties mp = compute_mass_properties(Shape::triangle_mesh(mesh), kDensity);
  const double volume = a * a * a / (6 * std::sqrt(2.0));
  const double m = kDensity * volume;
  EXPECT_NEAR(mp.volume, volume, 1e-14);
  expect_vec_near(mp.center_of_mass, shift, 1e-14);
  expect_mat_near(mp.inertia, Mat3::Identity() * (m * a * a / 20), 1e-11);
}

TEST(MassProperties, WithMassScalesDensity) {
  const Vec3 half(0.5, 0.25, 1.0);
  MassProperties mp = compute_mass_properties_with_mass(Shape::box(half), 3.0);
  EXPECT_DOUBLE_EQ(mp.mass, 3.0);
  EXPECT_NEAR(mp.volume, 1.0, 1e-15);
  EXPECT_NEAR(mp.inertia(0, 0), 3.0 * (0.25 + 4.0) / 12, 1e-13);
  EXPECT_NEAR(mp.inertia(1, 1), 3.0 * (1.0 + 4.0) / 12, 1e-13);
  EXPECT_NEAR(mp.inertia(2, 2), 3.0 * (1.0 + 0.25) / 12, 1e-13);
  check_principal(mp);
  // Any shape: with mass m equals the density version with density m / volume.
  const Shape capsule = Shape::capsule(0.3, 0.8);
  const double volume = compute_mass_properties(capsule, 1.0).volume;
  MassProperties a = compute_mass_properties_with_mass(capsule, 12.0);
  MassProperties b = compute_mass_properties(capsule, 12.0 / volume);
  EXPECT_NEAR(a.mass, b.mass, 1e-12);
  expect_mat_near(a.inertia, b.inertia, 1e-12);
  expect_vec_near(a.principal_moments, b.principal_moments, 1e-12);
}

TEST(MassProperties, PlaneIsAllZero) {
  const Shape plane = Shape::plane(Vec3(0, 0, 1), 0.5);
  for (const MassProperties& mp :
       {compute_mass_properties(plane, kDensity), compute_mass_properties_with_mass(plane, 5.0)}) {
    EXPECT_EQ(mp.volume, 0);
    EXPECT_EQ(mp.mass, 0);
    EXPECT_EQ(mp.center_of_mass, Vec3::Zero());
    EXPECT_EQ(mp.inertia, Mat3::Zero());
    EXPECT_EQ(mp.principal_moments, Vec3::Zero());
  }
}

}  // namespace
}  // namespace impetus
