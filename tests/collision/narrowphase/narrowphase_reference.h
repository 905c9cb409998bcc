#pragma once
// Independent references for the narrowphase and distance tests: test-local support functions,
// signed distance by dense search over directions, surface samplers and closed-form signed
// distance fields. Nothing here calls the engine's geometry (support_local, GJK, EPA, ...).
//
// Signed distance of convex A and B from support functions alone: with D = A − B and
// h_D(u) = h_A(u) + h_B(−u), δ = −min over unit u of h_D(u) (separating-axis form of the
// distance when D misses the origin; the distance from the origin to ∂D when it holds it), and
// the minimiser u* is the contact normal from A to B. Found by a dense Fibonacci grid of
// directions followed by a shrinking pattern search around the best grid points.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "collision/base/math.h"
#include "collision/shape/convex_hull.h"
#include "collision/shape/shape.h"
#include "collision/shape/triangle_mesh.h"
#include "tests/random_draws.h"

namespace impetus::testref {

/// World-frame support function h(u) = max over the set of u·x, and the maximiser.
using SupportFn = std::function<Vec3(const Vec3&)>;

/// Support function of a shape written independently of shape.cpp.
inline SupportFn make_support(const Shape& s, const Pose& p) {
  Mat3 r = p.orientation.toRotationMatrix();
  Vec3 c = p.position;
  switch (s.type) {
    case ShapeType::Sphere:
      return [c, rad = s.radius](const Vec3& u) { return Vec3(c + rad * u.normalized()); };
    case ShapeType::Capsule:
      return [c, r, s](const Vec3& u) {
        Vec3 axis = r.col(2) * s.half_length;
        Vec3 end = (u.dot(axis) >= 0) ? Vec3(c + axis) : Vec3(c - axis);
        return Vec3(end + s.radius * u.normalized());
      };
    case ShapeType::Box:
      return [c, r, h = s.half_extents](const Vec3& u) {
        Vec3 out = c;
        for (int k = 0; k < 3; ++k) out += r.col(k) * (r.col(k).dot(u) >= 0 ? h[k] : -h[k]);
        return out;
      };
    case ShapeType::Ellipsoid:
      return [c, r, a = s.radii](const Vec3& u) {
        // x = c + R A² Rᵀu / ‖A Rᵀu‖ for the ellipsoid {c + R A y : ‖y‖ ≤ 1}.
        Vec3 ul = r.transpose() * u;
        Vec3 au = a.cwiseProduct(ul);
        return Vec3(c + r * a.cwiseProduct(au) / au.norm());
      };
    case ShapeType::Convex: {
      std::vector<Vec3> pts;
      for (const Vec3& v : s.hull->vertices) pts.push_back(p.apply(v));
      return [pts](const Vec3& u) {
        Vec3 best = pts[0];
        for (const Vec3& q : pts)
          if (q.dot(u) > best.dot(u)) best = q;
        return best;
      };
    }
    default:
      break;
  }
  return nullptr;
}

/// Support function of a world triangle.
inline SupportFn triangle_support(const Vec3& a, const Vec3& b, const Vec3& c) {
  return [a, b, c](const Vec3& u) {
    Vec3 best = a;
    if (b.dot(u) > best.dot(u)) best = b;
    if (c.dot(u) > best.dot(u)) best = c;
    return best;
  };
}

struct RefDistance {
  double distance = 0;
  Vec3 normal = Vec3::UnitZ();  // a → b
};

inline std::vector<Vec3> fibonacci_directions(int n) {
  std::vector<Vec3> dirs;
  const double golden = kPi * (3.0 - std::sqrt(5.0));
  for (int i = 0; i < n; ++i) {
    double z = 1.0 - (2.0 * i + 1.0) / n;
    double rho = std::sqrt(std::max(0.0, 1.0 - z * z));
    double phi = golden * i;
    dirs.emplace_back(rho * std::cos(phi), rho * std::sin(phi), z);
  }
  return dirs;
}

/// h_D(u) = h_A(u) + h_B(−u) for unit u: −(separation of the slabs of A and B along u).
inline double support_gap(const SupportFn& sa, const SupportFn& sb, const Vec3& u) {
  return u.dot(sa(u)) - u.dot(sb(-u));
}

/// δ = −min_u [h_A(u) + h_B(−u)] by grid + pattern search. `extra` directions (both signs are
/// tried) join the grid as starting points: for two polytopes the face normals and edge cross
/// products contain the penetration direction (separating axis theorem), which makes the
/// overlapping case exact where the search alone may stop in a local minimum.
inline RefDistance reference_signed_distance(const SupportFn& sa, const SupportFn& sb,
                                             const std::vector<Vec3>& extra = {}) {
  static const std::vector<Vec3> grid = fibonacci_directions(3000);
  auto h = [&](const Vec3& u) { return support_gap(sa, sb, u); };
  std::vector<std::pair<double, Vec3>> values;
  for (const Vec3& u : grid) values.emplace_back(h(u), u);
  for (const Vec3& e : extra) {
    if (e.squaredNorm() < 1e-20) continue;
    Vec3 u = e.normalized();
    values.emplace_back(h(u), u);
    values.emplace_back(h(-u), Vec3(-u));
  }
  const int starts = 8;
  std::partial_sort(values.begin(), values.begin() + starts, values.end(),
                    [](const auto& x, const auto& y) { return x.first < y.first; });
  RefDistance best;
  double best_h = std::numeric_limits<double>::infinity();
  for (int start = 0; start < starts; ++start) {
    Vec3 u = values[start].second;
    double hu = values[start].first;
    double step = 0.05;
    int turn = 0;
    while (step > 1e-11) {
      Vec3 t1 = any_orthogonal(u);
      Vec3 t2 = u.cross(t1);
      bool improved = false;
      // 36 pattern directions, rotated every round, so that valleys along the kinks of the
      // support function (polytope edges, capsule axes) are followed.
      for (int k = 0; k < 36; ++k) {
        double ang = (k + 0.37 * turn) * (2 * kPi / 36);
        Vec3 cand = (u + step * (std::cos(ang) * t1 + std::sin(ang) * t2)).normalized();
        double hc = h(cand);
        if (hc < hu) {
          hu = hc;
          u = cand;
          improved = true;
        }
      }
      ++turn;
      if (!improved) step *= 0.5;
    }
    if (hu < best_h) {
      best_h = hu;
      best.normal = u;
    }
  }
  best.distance = -best_h;
  return best;
}

/// Face normals and edge directions (world) of a box or hull; the axis of a capsule.
inline void feature_axes(const Shape& s, const Pose& p, std::vector<Vec3>& faces,
                         std::vector<Vec3>& edges) {
  Mat3 r = p.orientation.toRotationMatrix();
  if (s.type == ShapeType::Box) {
    for (int k = 0; k < 3; ++k) {
      faces.push_back(r.col(k));
      edges.push_back(r.col(k));
    }
  } else if (s.type == ShapeType::Convex) {
    for (const HullFace& f : s.hull->faces) faces.push_back(r * f.normal);
    for (const auto& e : s.hull->edges)
      edges.push_back(r * (s.hull->vertices[e[1]] - s.hull->vertices[e[0]]));
  } else if (s.type == ShapeType::Capsule) {
    edges.push_back(r.col(2));
  }
}

/// Separating-axis candidates of a pair: both shapes' face normals and edge cross products.
inline std::vector<Vec3> pair_axes(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb) {
  std::vector<Vec3> fa, ea, fb, eb;
  feature_axes(a, pa, fa, ea);
  feature_axes(b, pb, fb, eb);
  std::vector<Vec3> out = fa;
  out.insert(out.end(), fb.begin(), fb.end());
  for (const Vec3& x : ea)
    for (const Vec3& y : eb) out.push_back(x.cross(y));
  return out;
}

inline RefDistance reference_signed_distance(const Shape& a, const Pose& pa, const Shape& b,
                                             const Pose& pb) {
  return reference_signed_distance(make_support(a, pa), make_support(b, pb),
                                   pair_axes(a, pa, b, pb));
}

// ---- closed-form signed distance fields (world point x) ------------------------------------

inline double sdf_sphere(const Vec3& c, double r, const Vec3& x) { return (x - c).norm() - r; }

inline double sdf_box(const Vec3& h, const Pose& p, const Vec3& x) {
  Vec3 q = p.inverse_apply(x);
  Vec3 d = q.cwiseAbs() - h;
  Vec3 outside = d.cwiseMax(0.0);
  return outside.norm() + std::min(d.maxCoeff(), 0.0);
}

inline double sdf_capsule(double r, double hl, const Pose& p, const Vec3& x) {
  Vec3 q = p.inverse_apply(x);
  double z = std::clamp(q.z(), -hl, hl);
  return (q - Vec3(0, 0, z)).norm() - r;
}

/// Solid half-space n·x <= offset (world).
inline double sdf_plane(const Vec3& n, double offset, const Vec3& x) { return n.dot(x) - offset; }

/// Exact signed distance of a point to a shape where closed-form (sphere, box, capsule).
inline double sdf_shape(const Shape& s, const Pose& p, const Vec3& x) {
  switch (s.type) {
    case ShapeType::Sphere:
      return sdf_sphere(p.position, s.radius, x);
    case ShapeType::Box:
      return sdf_box(s.half_extents, p, x);
    case ShapeType::Capsule:
      return sdf_capsule(s.radius, s.half_length, p, x);
    default:
      break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// ---- surface tests -----------------------------------------------------------------------

/// |implicit surface value| of x with respect to a shape's boundary, in metres where possible
/// (ellipsoid: radial estimate; hull: max over face planes).
inline double surface_residual(const Shape& s, const Pose& p, const Vec3& x) {
  switch (s.type) {
    case ShapeType::Sphere:
    case ShapeType::Box:
    case ShapeType::Capsule:
      return std::abs(sdf_shape(s, p, x));
    case ShapeType::Ellipsoid: {
      Vec3 q = p.inverse_apply(x);
      double e = q.cwiseQuotient(s.radii).norm();  // 1 on the surface
      return std::abs(e - 1.0) * s.radii.minCoeff();
    }
    case ShapeType::Convex: {
      Vec3 q = p.inverse_apply(x);
      double m = -std::numeric_limits<double>::infinity();
      for (const HullFace& f : s.hull->faces) m = std::max(m, f.normal.dot(q) - f.offset);
      return std::abs(m);
    }
    default:
      break;
  }
  return 0;
}

/// Distance from x to triangle (a, b, c): plane distance when the projection is inside (sign
/// tests with cross products), else the nearest edge.
inline double point_triangle_distance(const Vec3& x, const Vec3& a, const Vec3& b, const Vec3& c) {
  Vec3 n = (b - a).cross(c - a).normalized();
  Vec3 q = x - n.dot(x - a) * n;
  bool inside = n.dot((b - a).cross(q - a)) >= 0 && n.dot((c - b).cross(q - b)) >= 0 &&
                n.dot((a - c).cross(q - c)) >= 0;
  if (inside) return std::abs(n.dot(x - a));
  auto seg = [&](const Vec3& p0, const Vec3& p1) {
    Vec3 d = p1 - p0;
    double t = std::clamp((x - p0).dot(d) / d.squaredNorm(), 0.0, 1.0);
    return (x - (p0 + t * d)).norm();
  };
  return std::min({seg(a, b), seg(b, c), seg(c, a)});
}

/// A point inside a shape that tells the front of a triangle from its back: the pose's origin,
/// the vertex centroid for hulls (as ConvexSupport::center() documents).
inline Vec3 shape_centre(const Shape& s, const Pose& p) {
  if (s.type != ShapeType::Convex) return p.position;
  Vec3 c = Vec3::Zero();
  for (const Vec3& v : s.hull->vertices) c += v;
  return p.apply(c / static_cast<double>(s.hull->vertices.size()));
}

// Reference for mesh a against convex b: the minimum over triangles of the support-function
// reference, by branch and bound on a lower bound per triangle (a coarse grid's min of h_D is
// >= the true min, so −(it) is a lower bound of that triangle's δ).
//
// With `front_faces` (collide(), see contact_mesh.cpp), a triangle that b overlaps with its
// centre in front but whose two-sided way out (the reference normal, mesh → b) leaves through
// the back counts with its front-face depth instead: how far b reaches below the triangle's
// plane, nf·(s_b(−nf) − v0). A sharp vertex stuck through a triangle next to its edge is such
// a case: sideways past the edge is its short way out of that zero-thickness triangle, but the
// vertex is that deep under the surface. signed_distance() has no such rule (two-sided).
inline double mesh_reference_distance(const TriangleMesh& mesh, const Pose& pm, const Shape& b,
                                      const Pose& pb, bool front_faces = false) {
  SupportFn sb = make_support(b, pb);
  const Vec3 centre = shape_centre(b, pb);
  static const std::vector<Vec3> coarse = fibonacci_directions(200);
  struct Candidate {
    double lower;  // <= the triangle's value
    int t;
    double front;  // front-face depth, when the rule may apply (centre in front)
    bool in_front;
  };
  std::vector<Candidate> bounds;
  for (int t = 0; t < static_cast<int>(mesh.triangles.size()); ++t) {
    const auto& tri = mesh.triangles[t];
    Vec3 v0 = pm.apply(mesh.vertices[tri[0]]), v1 = pm.apply(mesh.vertices[tri[1]]),
         v2 = pm.apply(mesh.vertices[tri[2]]);
    SupportFn st = triangle_support(v0, v1, v2);
    double m = 1e300;
    for (const Vec3& u : coarse) m = std::min(m, support_gap(st, sb, u));
    Candidate c{-m, t, 0, false};
    Vec3 nf = (v1 - v0).cross(v2 - v0).normalized();
    // −m > 0 proves the pair separated (a separating direction), where the rule cannot apply.
    if (front_faces && -m <= 0 && nf.dot(centre - v0) > 0) {
      c.in_front = true;
      c.front = nf.dot(sb(-nf) - v0);
      c.lower = std::min(c.lower, c.front);
    }
    bounds.push_back(c);
  }
  std::sort(bounds.begin(), bounds.end(),
            [](const Candidate& x, const Candidate& y) { return x.lower < y.lower; });
  double best = 1e300;
  for (const Candidate& c : bounds) {
    if (c.lower >= best) break;
    const auto& tri = mesh.triangles[c.t];
    Vec3 v0 = pm.apply(mesh.vertices[tri[0]]), v1 = pm.apply(mesh.vertices[tri[1]]),
         v2 = pm.apply(mesh.vertices[tri[2]]);
    std::vector<Vec3> axes, fb, eb;
    feature_axes(b, pb, fb, eb);
    Vec3 n = (v1 - v0).cross(v2 - v0);
    axes.push_back(n);
    axes.insert(axes.end(), fb.begin(), fb.end());
    for (const Vec3& e : {Vec3(v1 - v0), Vec3(v2 - v1), Vec3(v0 - v2)}) {
      for (const Vec3& f : eb) axes.push_back(e.cross(f));
    }
    RefDistance r = reference_signed_distance(triangle_support(v0, v1, v2), sb, axes);
    const bool out_of_the_back = c.in_front && r.distance < 0 && r.normal.dot(n) < 0;
    best = std::min(best, out_of_the_back ? c.front : r.distance);
  }
  return best;
}

// ---- random poses and shapes -------------------------------------------------------------
// Draws go through tests/random_draws.h, one per statement, so that GCC and clang draw the
// same cases.

using test::random_rotation;
using test::random_vector;
using test::uniform;

/// A random convex hull: points on a jittered ellipsoid, 12..30 of them.
inline std::shared_ptr<const ConvexHull> random_hull(std::mt19937_64& rng) {
  int n = std::uniform_int_distribution<int>(12, 30)(rng);
  Vec3 radii = random_vector(rng, 0.3, 0.8);
  std::vector<Vec3> pts;
  std::normal_distribution<double> g(0.0, 1.0);
  for (int i = 0; i < n; ++i) {
    pts.push_back(radii.cwiseProduct(test::draw_vec3(g, rng).normalized()));
  }
  auto hull = build_convex_hull(pts, nullptr);
  return std::make_shared<const ConvexHull>(*hull);
}

inline constexpr ShapeType kConvexTypes[] = {ShapeType::Sphere, ShapeType::Capsule, ShapeType::Box,
                                             ShapeType::Ellipsoid, ShapeType::Convex};

inline Shape random_shape(ShapeType type, std::mt19937_64& rng) {
  switch (type) {
    case ShapeType::Sphere:
      return Shape::sphere(uniform(rng, 0.2, 0.7));
    case ShapeType::Capsule: {
      const double radius = uniform(rng, 0.15, 0.5);
      return Shape::capsule(radius, uniform(rng, 0.2, 0.7));
    }
    case ShapeType::Box:
      return Shape::box(random_vector(rng, 0.15, 0.7));
    case ShapeType::Ellipsoid:
      return Shape::ellipsoid(random_vector(rng, 0.2, 0.8));
    case ShapeType::Convex:
      return Shape::convex(random_hull(rng));
    default:
      break;
  }
  return Shape::sphere(1);
}

/// Bounding radius, the scale of a random pair.
inline double size_of(const Shape& s) { return bounding_radius(s); }

/// Closed triangulated sphere (octahedron subdivided `levels` times, projected), CCW outward.
inline std::shared_ptr<const TriangleMesh> sphere_mesh(double radius, int levels) {
  auto mesh = std::make_shared<TriangleMesh>();
  mesh->vertices = {Vec3(1, 0, 0),  Vec3(-1, 0, 0), Vec3(0, 1, 0),
                    Vec3(0, -1, 0), Vec3(0, 0, 1),  Vec3(0, 0, -1)};
  mesh->triangles = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                     {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
  for (int l = 0; l < levels; ++l) {
    std::vector<std::array<int, 3>> next;
    std::vector<std::pair<std::pair<int, int>, int>> mids;
    auto mid = [&](int i, int j) {
      std::pair<int, int> key(std::min(i, j), std::max(i, j));
      for (const auto& m : mids)
        if (m.first == key) return m.second;
      mesh->vertices.push_back((mesh->vertices[i] + mesh->vertices[j]).normalized());
      int id = static_cast<int>(mesh->vertices.size()) - 1;
      mids.emplace_back(key, id);
      return id;
    };
    for (const auto& t : mesh->triangles) {
      int ab = mid(t[0], t[1]), bc = mid(t[1], t[2]), ca = mid(t[2], t[0]);
      next.push_back({t[0], ab, ca});
      next.push_back({ab, t[1], bc});
      next.push_back({ca, bc, t[2]});
      next.push_back({ab, bc, ca});
    }
    mesh->triangles = next;
  }
  for (Vec3& v : mesh->vertices) v *= radius;
  mesh->build_bvh();
  return mesh;
}

/// Open height-field mesh over [-size, size]² with gentle random bumps, normals up (+z).
inline std::shared_ptr<const TriangleMesh> terrain_mesh(std::mt19937_64& rng, int n, double size,
                                                        double bump) {
  auto mesh = std::make_shared<TriangleMesh>();
  for (int j = 0; j <= n; ++j) {
    for (int i = 0; i <= n; ++i) {
      double x = -size + 2 * size * i / n;
      double y = -size + 2 * size * j / n;
      mesh->vertices.emplace_back(x, y, uniform(rng, -bump, bump));
    }
  }
  auto id = [n](int i, int j) { return j * (n + 1) + i; };
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      mesh->triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      mesh->triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  }
  mesh->build_bvh();
  return mesh;
}

}  // namespace impetus::testref
