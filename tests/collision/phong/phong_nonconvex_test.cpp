// Phong distance with non-convex closed meshes (paper 2, §V.E: projection onto the convolution,
// kept only where it lies on the true boundary of the Minkowski difference), against references
// built here from the convex pieces the test meshes are made of:
//  - overlap of a box with a U made of three boxes: the separating-axis test (15 axes), ours;
//  - Euclidean penetration depth: the shortest translation that ends the overlap, by brute
//    force over 20K directions (Fibonacci sphere) with bisection along each, then refined;
//  - separation distance: GJK on the pieces (collision/distance/distance.h), a different code path.
#include "collision/phong/phong_distance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "collision/shape/convex_hull.h"
#include "collision/distance/distance.h"
#include "collision/phong/phong_convolution.h"
#include "collision/shape/procedural_mesh.h"
#include "collision/shape/triangle_mesh.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

double angle_deg(const Vec3& a, const Vec3& b) {
  return std::acos(std::clamp(a.normalized().dot(b.normalized()), -1.0, 1.0)) * 180.0 / kPi;
}

// ---- meshes ----------------------------------------------------------------------------------


// The U: outer [−1, 1] × [−1, 1] × [−h, h] minus the notch [−0.5, 0.5] × [−0.5, 1] (open at
// +y), made of three boxes: base y ∈ [−1, −0.5] and two prongs x ∈ ±[0.5, 1].
constexpr double kHalfDepth = 0.5;
struct Piece {
  Vec3 centre;
  Vec3 half;
};
const std::array<Piece, 3> kUPieces = {Piece{Vec3(0, -0.75, 0), Vec3(1, 0.25, kHalfDepth)},
                                       Piece{Vec3(-0.75, 0.25, 0), Vec3(0.25, 0.75, kHalfDepth)},
                                       Piece{Vec3(0.75, 0.25, 0), Vec3(0.25, 0.75, kHalfDepth)}};

Shape u_shape(double cell) {
  const int nxy = static_cast<int>(std::lround(2.0 / cell));
  const int nz = static_cast<int>(std::lround(2 * kHalfDepth / cell));
  auto mesh = voxel_mesh({nxy, nxy, nz}, cell, Vec3(-1, -1, -kHalfDepth), [&](int i, int j, int) {
    const double x = -1 + (i + 0.5) * cell, y = -1 + (j + 0.5) * cell;
    return !(std::abs(x) < 0.5 && y > -0.5);
  });
  EXPECT_TRUE(mesh->is_closed());
  return Shape::triangle_mesh(mesh);
}

// A box as a closed mesh with each face cut into cells (sizes multiples of `cell`).
Shape gridded_box(const Vec3& half, double cell) {
  const std::array<int, 3> n = {static_cast<int>(std::lround(2 * half.x() / cell)),
                                static_cast<int>(std::lround(2 * half.y() / cell)),
                                static_cast<int>(std::lround(2 * half.z() / cell))};
  auto mesh = voxel_mesh(n, cell, -half, [](int, int, int) { return true; });
  EXPECT_TRUE(mesh->is_closed());
  return Shape::triangle_mesh(mesh);
}

// ---- references --------------------------------------------------------------------------------

// Separating-axis test of two boxes (centre, rotation columns = axes, half extents): true when
// the interiors overlap (an overlap thinner than 1e-12 on some axis counts as apart).
bool boxes_overlap(const Vec3& ca, const Mat3& ra, const Vec3& ha, const Vec3& cb, const Mat3& rb,
                   const Vec3& hb) {
  std::vector<Vec3> axes;
  for (int i = 0; i < 3; ++i) axes.push_back(ra.col(i));
  for (int i = 0; i < 3; ++i) axes.push_back(rb.col(i));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      const Vec3 c = ra.col(i).cross(rb.col(j));
      if (c.norm() > 1e-9) axes.push_back(c.normalized());
    }
  }
  const Vec3 t = cb - ca;
  for (const Vec3& l : axes) {
    double r = 0;
    for (int i = 0; i < 3; ++i) {
      r += ha[i] * std::abs(ra.col(i).dot(l)) + hb[i] * std::abs(rb.col(i).dot(l));
    }
    if (std::abs(t.dot(l)) >= r - 1e-12) return false;
  }
  return true;
}

// The moving box in the U's frame.
struct BoxInU {
  Vec3 centre;
  Mat3 rotation;
  Vec3 half;
};

bool overlaps_u(const BoxInU& b, const Vec3& shift) {
  for (const Piece& p : kUPieces) {
    if (boxes_overlap(p.centre, Mat3::Identity(), p.half, b.centre + shift, b.rotation, b.half)) {
      return true;
    }
  }
  return false;
}

// First translation length along unit u at which the box stops overlapping the U (marching in
// `step`s, then bisection); `limit` stops the march early (returns limit).
double exit_length(const BoxInU& b, const Vec3& u, double limit, double step = 1e-2) {
  double lo = 0, hi = step;
  while (overlaps_u(b, hi * u)) {
    lo = hi;
    hi += step;
    if (lo > limit) return limit;
  }
  if (lo >= limit) return limit;  // cannot beat the best length so far
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    (overlaps_u(b, mid * u) ? lo : hi) = mid;
  }
  return hi;
}

Vec3 spherical(double theta, double phi) {
  return Vec3(std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta));
}

struct Depth {
  double depth = 0;
  Vec3 direction = Vec3::UnitZ();  // the box moves along it (U's frame)
};

// Euclidean penetration depth of an overlapping box: the minimum over 20K Fibonacci-sphere
// directions of the exit length, then a pattern search on the direction from the best sample.
Depth brute_force_depth(const BoxInU& b) {
  const int count = 20000;
  const double golden = kPi * (3.0 - std::sqrt(5.0));
  Depth best{1e9, Vec3::UnitZ()};
  for (int i = 0; i < count; ++i) {
    const double z = 1.0 - 2.0 * (i + 0.5) / count;
    const double r = std::sqrt(1.0 - z * z);
    const Vec3 u(r * std::cos(golden * i), r * std::sin(golden * i), z);
    const double t = exit_length(b, u, best.depth);
    if (t < best.depth) best = {t, u};
  }
  double theta = std::acos(std::clamp(best.direction.z(), -1.0, 1.0));
  double phi = std::atan2(best.direction.y(), best.direction.x());
  for (double h = 0.02; h > 1e-9; h *= 0.5) {
    bool moved = true;
    while (moved) {
      moved = false;
      for (const auto& [dt, dp] : {std::pair{h, 0.0}, {-h, 0.0}, {0.0, h}, {0.0, -h}}) {
        const Vec3 u = spherical(theta + dt, phi + dp);
        const double t = exit_length(b, u, best.depth + 0.01);
        if (t < best.depth - 1e-15) {
          best = {t, u};
          theta += dt;
          phi += dp;
          moved = true;
        }
      }
    }
  }
  return best;
}

// Separation distance of a box from the U: GJK against each piece.
double separation_from_u(const BoxInU& b) {
  double d = 1e9;
  for (const Piece& p : kUPieces) {
    Pose pp, pb;
    pp.position = p.centre;
    pb.position = b.centre;
    pb.orientation = Quat(b.rotation);
    const std::optional<DistanceResult> r =
        signed_distance(Shape::box(p.half), pp, Shape::box(b.half), pb);
    EXPECT_TRUE(r.has_value());
    if (r) d = std::min(d, r->distance);
  }
  return d;
}

// The box in the U's frame, for a U at pose_u and the box at pose_b.
BoxInU box_in_u(const Vec3& half, const Pose& pose_u, const Pose& pose_b) {
  const Pose rel = pose_u.inverse() * pose_b;
  return {rel.position, rel.orientation.toRotationMatrix(), half};
}

// The documented convention: B moved by −point touches A. Push it 1e-7 m further out / in
// along the direction: apart / overlapping (in the U's frame, by the separating-axis test).
void expect_touching(const BoxInU& b, const Pose& pose_u, const PhongDistanceResult& r,
                     const std::string& where) {
  const Vec3 point = pose_u.inverse_rotate(r.point);
  const Vec3 dir = pose_u.inverse_rotate(r.direction);
  EXPECT_FALSE(overlaps_u(b, -point + 1e-7 * dir)) << where;
  EXPECT_TRUE(overlaps_u(b, -point - 1e-7 * dir)) << where;
}

using test::random_rotation;  // one draw per statement (tests/random_draws.h)

// ---- tests -------------------------------------------------------------------------------------

TEST(PhongNonConvex, BoxPressedIntoNotchFloorMatchesBruteForceDepth) {
  // A gridded box sits in the U's notch, sunk δ into the notch floor, away from the walls: the
  // only short way out is straight up (+y). Around the origin's projection every vertex of the
  // Minkowski difference has a flat star, so the interpolated normal is the face normal there
  // and the Phong projection is the Euclidean one: the brute-force depth and direction.
  const Shape u = u_shape(0.25);
  const Vec3 half(0.2, 0.15, 0.2);
  const Shape box = gridded_box(half, 0.1);
  std::mt19937 rng(7);
  for (int turn = 0; turn < 2; ++turn) {
    Pose pu;
    pu.orientation = turn == 0 ? Quat::Identity() : random_rotation(rng);
    pu.position = Vec3(0.3, -0.2, 0.1);
    for (double delta : {0.05, 0.12}) {
      Pose pb;
      pb.orientation = pu.orientation;
      pb.position = pu.apply(Vec3(0.03, -0.5 + half.y() - delta, -0.02));
      const PhongDistanceResult r = phong_distance(u, pu, box, pb);
      EXPECT_TRUE(r.converged);
      EXPECT_TRUE(r.convolution_used);
      EXPECT_FALSE(r.mesh_hull_used);
      const BoxInU b = box_in_u(half, pu, pb);
      const Depth ref = brute_force_depth(b);
      EXPECT_NEAR(ref.depth, delta, 1e-6);  // the reference itself, against the set-up
      EXPECT_NEAR(r.distance, -ref.depth, 1e-6) << turn << " " << delta;
      EXPECT_LT(angle_deg(pu.inverse_rotate(r.direction), ref.direction), 0.1);
      EXPECT_LT((r.point - r.distance * r.direction).norm(), 1e-9);
      expect_touching(b, pu, r, "delta " + std::to_string(delta));
    }
  }
}

TEST(PhongNonConvex, BoxWedgedIntoNotchCornerEscapesThroughTheCrease) {
  // The box sunk δy into the notch floor and δx into the right prong's wall at once: D is the
  // union of two half-spaces near the origin and every projection onto either sheet lands inside
  // the other; the way out is the crease, diagonally, by √(δx² + δy²).
  const Shape u = u_shape(0.25);
  const Vec3 half(0.2, 0.15, 0.2);
  const Shape box = gridded_box(half, 0.1);
  Pose pu;
  pu.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(-1, 2, 0.5).normalized()));
  const double dx = 0.03, dy = 0.04;
  Pose pb;
  pb.orientation = pu.orientation;
  pb.position = pu.apply(Vec3(0.5 - half.x() + dx, -0.5 + half.y() - dy, 0.04));
  const PhongDistanceResult r = phong_distance(u, pu, box, pb);
  ASSERT_TRUE(r.converged);
  EXPECT_TRUE(r.crease);
  const BoxInU b = box_in_u(half, pu, pb);
  const Depth ref = brute_force_depth(b);
  EXPECT_NEAR(ref.depth, std::hypot(dx, dy), 1e-6);
  EXPECT_NEAR(r.distance, -ref.depth, 1e-6);
  EXPECT_LT(angle_deg(pu.inverse_rotate(r.direction), ref.direction), 0.1);
  expect_touching(b, pu, r, "corner");
}

TEST(PhongNonConvex, RandomPosesNeverBeatTheEuclideanDepthAndTouch) {
  // Box shapes (12 triangles, sharp normals) at random poses around the notch and prongs. The
  // Phong point is a point of the boundary, so |distance| can never be below the Euclidean
  // distance to the boundary; the sign is the overlap test's; b moved by −point touches.
  const Shape u = u_shape(0.25);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  int overlapping = 0, separated = 0;
  for (int k = 0; k < 10; ++k) {
    const Vec3 half = Vec3(0.12, 0.1, 0.12) + 0.08 * test::draw_vec3(uni, rng).cwiseAbs();
    const Shape box = Shape::box(half);
    Pose pu, pb;
    pu.orientation = random_rotation(rng);
    Pose rel;
    const double angle = 0.5 * uni(rng);
    const double ax = uni(rng);
    const double ay = uni(rng);
    rel.orientation = Quat(Eigen::AngleAxisd(angle, Vec3(ax, ay, 1).normalized()));
    // Even poses inside the notch (mostly apart), odd ones anywhere round the U.
    const Vec3 w = test::draw_vec3(uni, rng);
    rel.position = k % 2 == 0 ? Vec3(0.3 * w.x(), 0.2 + 0.4 * w.y(), 0.2 * w.z())
                              : Vec3(0.9 * w.x(), 0.8 * w.y() + 0.1, 0.3 * w.z());
    pb = pu * rel;
    const BoxInU b = box_in_u(half, pu, pb);
    const PhongDistanceResult r = phong_distance(u, pu, box, pb);
    EXPECT_TRUE(r.converged) << k;
    EXPECT_TRUE(r.convolution_used) << k;
    const bool overlap = overlaps_u(b, Vec3::Zero());
    EXPECT_EQ(r.distance < 0, overlap) << k;
    if (overlap) {
      ++overlapping;
      const Depth ref = brute_force_depth(b);
      EXPECT_GE(-r.distance, ref.depth - 1e-6) << k;
    } else {
      ++separated;
      EXPECT_GE(r.distance, separation_from_u(b) - 1e-9) << k;
    }
    expect_touching(b, pu, r, "pose " + std::to_string(k));
  }
  EXPECT_GE(overlapping, 3);
  EXPECT_GE(separated, 2);
}

TEST(PhongNonConvex, NotchMattersWhereTheHullWouldNot) {
  // A box inside the notch, clear of it: apart in truth (distance = the gap to the right prong
  // when the Phong point is the Euclidean one), deep inside the hull of the U.
  const Shape u = u_shape(0.25);
  std::string error;
  std::optional<ConvexHull> hull = build_convex_hull(u.mesh->vertices, &error);
  ASSERT_TRUE(hull.has_value()) << error;
  const Shape u_hull = Shape::convex(std::make_shared<const ConvexHull>(std::move(*hull)));
  const Vec3 half(0.2, 0.2, 0.2);
  const Shape box = gridded_box(half, 0.1);
  Pose pu, pb;
  pb.position = Vec3(0.1, 0.05, 0.0);
  const PhongDistanceResult r = phong_distance(u, pu, box, pb);
  const PhongDistanceResult rh = phong_distance(u_hull, pu, box, pb);
  ASSERT_TRUE(r.converged);
  EXPECT_FALSE(r.mesh_hull_used);
  EXPECT_TRUE(r.convolution_used);
  EXPECT_FALSE(rh.convolution_used);
  const BoxInU b = box_in_u(half, pu, pb);
  EXPECT_NEAR(separation_from_u(b), 0.2, 1e-9);
  EXPECT_NEAR(r.distance, 0.2, 1e-9);  // gap to the right prong's inner wall, along +x
  // Direction a → b: from the prong's wall towards the box; moving b by −distance·direction
  // (+x) closes the gap.
  EXPECT_LT((r.direction - Vec3(-1, 0, 0)).norm(), 1e-6);
  EXPECT_LT(rh.distance, -0.1);  // the hull swallows the box
  expect_touching(b, pu, r, "notch");
}

TEST(PhongNonConvex, DirectionTurnsContinuouslyRoundAProngEdge) {
  // A 0.1 m box crosses the bisector of the right prong's outer top edge (x = 1, y = 1) at
  // depth 0.1 in 1 mm steps. The Euclidean direction switches from +x to +y there (a 90° jump);
  // the answer stays on the sheet of ∂D round that edge and the Phong direction turns
  // continuously.
  const Shape u = u_shape(0.5);
  const Vec3 half(0.1, 0.1, 0.1);
  const Shape box = Shape::box(half);
  Pose pu;
  pu.orientation = Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()));
  Vec3 previous = Vec3::Zero();
  double max_step = 0;
  Vec3 first = Vec3::Zero(), last = Vec3::Zero();
  const double delta = 0.1;
  for (int i = -40; i <= 40; ++i) {
    const double s = 1e-3 * i;
    Pose pb;
    pb.orientation = pu.orientation;
    pb.position = pu.apply(Vec3(1 + half.x() - delta - s, 1 + half.y() - delta + s, 0.05));
    const PhongDistanceResult r = phong_distance(u, pu, box, pb);
    ASSERT_TRUE(r.converged) << i;
    const Vec3 dir = pu.inverse_rotate(r.direction);
    // On the sheet round the edge: the direction stays in the quadrant between +x and +y.
    EXPECT_GT(dir.x(), -1e-9) << i;
    EXPECT_GT(dir.y(), -1e-9) << i;
    if (i > -40) max_step = std::max(max_step, angle_deg(previous, dir));
    if (i == -40) first = dir;
    last = dir;
    previous = dir;
    if (i % 20 == 0) expect_touching(box_in_u(half, pu, pb), pu, r, "step " + std::to_string(i));
  }
  EXPECT_LE(max_step, 5.0);
  EXPECT_GT(angle_deg(first, last), 10.0);  // it does turn round the edge
}

TEST(PhongNonConvex, DentedOctahedronIsNoLongerItsHull) {
  // The dented octahedron of phong_distance_test (top vertex pushed below the equator) is the
  // union of four tetrahedra round the z axis. A box hovering in the dent is apart from it,
  // though deep inside its hull.
  auto dented = std::make_shared<TriangleMesh>();
  dented->vertices = {Vec3(1, 0, 0), Vec3(-1, 0, 0), Vec3(0, 1, 0), Vec3(0, -1, 0),
                      Vec3(0, 0, -0.3), Vec3(0, 0, -1)};
  dented->triangles = {{4, 0, 2}, {4, 2, 1}, {4, 1, 3}, {4, 3, 0},
                       {5, 2, 0}, {5, 1, 2}, {5, 3, 1}, {5, 0, 3}};
  dented->build_bvh();
  const Shape mesh = Shape::triangle_mesh(dented);
  const Shape box = Shape::box(Vec3(0.1, 0.1, 0.1));
  Pose pa, pb;
  pb.position = Vec3(0.05, -0.02, -0.1);
  const PhongDistanceResult r = phong_distance(mesh, pa, box, pb);
  EXPECT_FALSE(r.mesh_hull_used);
  EXPECT_TRUE(r.convolution_used);
  ASSERT_TRUE(r.converged);
  // Reference: GJK against the four tetrahedra.
  const std::array<std::array<int, 2>, 4> rim = {{{0, 2}, {2, 1}, {1, 3}, {3, 0}}};
  std::vector<Shape> pieces;
  for (const auto& e : rim) {
    std::optional<ConvexHull> h = build_convex_hull(
        {dented->vertices[e[0]], dented->vertices[e[1]], dented->vertices[4], dented->vertices[5]},
        nullptr);
    ASSERT_TRUE(h.has_value());
    pieces.push_back(Shape::convex(std::make_shared<const ConvexHull>(std::move(*h))));
  }
  auto distance_to_pieces = [&](const Pose& p) {
    double d = 1e9;
    for (const Shape& s : pieces) d = std::min(d, signed_distance(s, pa, box, p)->distance);
    return d;
  };
  const double gap = distance_to_pieces(pb);
  EXPECT_GT(gap, 0.01);
  EXPECT_GE(r.distance, gap - 1e-9);
  Pose moved = pb;
  moved.position -= r.point;
  EXPECT_NEAR(distance_to_pieces(moved), 0.0, 1e-7);
  std::optional<ConvexHull> h = build_convex_hull(dented->vertices, nullptr);
  const PhongDistanceResult rh =
      phong_distance(Shape::convex(std::make_shared<const ConvexHull>(std::move(*h))), pa, box, pb);
  EXPECT_LT(rh.distance, 0.0);
}

TEST(PhongNonConvex, ConvolutionOfRotatedBoxesCoversTheirMinkowskiDifference) {
  // For convex shapes the convolution is exactly ∂D, so the convolution path forced on random
  // rotated box pairs (generic face–vertex and edge–edge facets) must behave like a Phong
  // distance on the convex D: the sign of GJK/EPA, |distance| ≥ the Euclidean one, and b moved
  // by −point touching a (checked by GJK/EPA).
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  int checked = 0;
  for (int k = 0; k < 40; ++k) {
    const Shape a = Shape::box(Vec3::Constant(0.2) + 0.3 * test::draw_vec3(uni, rng).cwiseAbs());
    const Shape b = Shape::box(Vec3::Constant(0.1) + 0.3 * test::draw_vec3(uni, rng).cwiseAbs());
    Pose pa, pb;
    pa.orientation = random_rotation(rng);
    pb.orientation = random_rotation(rng);
    pb.position = test::draw_vec3(uni, rng);
    const PhongDistanceResult r = phong_distance_convolution(
        *convolution_mesh_of(a), pa, *convolution_mesh_of(b), pb, PhongDistanceOptions{});
    const DistanceResult e = *signed_distance(a, pa, b, pb);
    if (std::abs(e.distance) < 1e-6) continue;
    ++checked;
    EXPECT_TRUE(r.converged) << k;
    EXPECT_EQ(r.distance > 0, e.distance > 0) << k;
    EXPECT_GE(std::abs(r.distance), std::abs(e.distance) - 1e-9) << k;
    Pose moved = pb;
    moved.position -= r.point;
    EXPECT_NEAR(signed_distance(a, pa, b, moved)->distance, 0.0, 1e-7) << k;
  }
  EXPECT_GE(checked, 30);
}

TEST(PhongNonConvex, QueryToolAnswersANonConvexPair) {
  // `impetus query` with the U given inline as a mesh and a box in its notch.
  const Shape u = u_shape(0.5);
  nlohmann::json vertices = nlohmann::json::array(), triangles = nlohmann::json::array();
  for (const Vec3& v : u.mesh->vertices) vertices.push_back({v.x(), v.y(), v.z()});
  for (const auto& t : u.mesh->triangles) triangles.push_back({t[0], t[1], t[2]});
  const nlohmann::json a = {{"shape", {{"type", "mesh"}, {"vertices", vertices}, {"triangles", triangles}}},
                            {"position", {0, 0, 0}}, {"orientation", {1, 0, 0, 0}}};
  const nlohmann::json b = {{"shape", {{"type", "box"}, {"half_extents", {0.2, 0.2, 0.2}}}},
                            {"position", {0.1, 0.05, 0.0}}, {"orientation", {1, 0, 0, 0}}};
  const nlohmann::json doc = {
      {"format", "impetus-query/1"},
      {"queries", {{{"id", "notch"}, {"type", "phong_distance"}, {"a", a}, {"b", b}}}}};
  const std::string dir = std::string(IMPETUS_BINARY_DIR) + "/phong_nonconvex_query";
  std::filesystem::create_directories(dir);
  const std::string input = dir + "/q.json", output = dir + "/out.json";
  std::ofstream(input) << doc.dump();
  const std::string command =
      std::string("\"") + IMPETUS_CLI + "\" query \"" + input + "\" > \"" + output + "\"";
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream in(output);
  const nlohmann::json result = nlohmann::json::parse(in).at("results").at(0);
  ASSERT_FALSE(result.contains("error")) << result.dump();
  EXPECT_TRUE(result.at("converged").get<bool>());
  // Apart by the 0.2 m gap to the right prong (the hull would report an overlap).
  EXPECT_NEAR(result.at("distance").get<double>(), 0.2, 1e-9);
  EXPECT_NEAR(result.at("direction").at(0).get<double>(), -1.0, 1e-6);
}

}  // namespace
}  // namespace impetus
