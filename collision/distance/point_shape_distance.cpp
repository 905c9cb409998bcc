#include "collision/distance/point_shape_distance.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "collision/distance/segment_closest.h"
#include "collision/distance/triangle_distance.h"

namespace impetus {
namespace {

double robust_length(double a, double b) {
  const double m = std::max(std::abs(a), std::abs(b));
  if (m == 0) return 0;
  return m * std::hypot(a / m, b / m);
}
double robust_length(double a, double b, double c) {
  const double m = std::max({std::abs(a), std::abs(b), std::abs(c)});
  if (m == 0) return 0;
  const double x = a / m, y = b / m, z = c / m;
  return m * std::sqrt(x * x + y * y + z * z);
}

// Eberly, "Distance from a point to an ellipse, an ellipsoid, or a hyperellipsoid": the
// closest point satisfies x_i = r_i y_i / (s + r_i) (r_i = (e_i / e_min)²) where s is the root
// of F(s) = Σ (r_i z_i / (s + r_i))² − 1 (z_i = y_i / e_i), found by bisection on a bracket
// that holds for points inside (F(0) < 0) and outside alike.
double root_2d(double r0, double z0, double z1, double g) {
  const double n0 = r0 * z0;
  double s0 = z1 - 1, s1 = g < 0 ? 0 : robust_length(n0, z1) - 1, s = 0;
  for (int i = 0; i < 1100; ++i) {
    s = 0.5 * (s0 + s1);
    if (s == s0 || s == s1) break;
    const double a = n0 / (s + r0), b = z1 / (s + 1);
    const double f = a * a + b * b - 1;
    if (f > 0) s0 = s;
    else if (f < 0) s1 = s;
    else break;
  }
  return s;
}

double root_3d(double r0, double r1, double z0, double z1, double z2, double g) {
  const double n0 = r0 * z0, n1 = r1 * z1;
  double s0 = z2 - 1, s1 = g < 0 ? 0 : robust_length(n0, n1, z2) - 1, s = 0;
  for (int i = 0; i < 1100; ++i) {
    s = 0.5 * (s0 + s1);
    if (s == s0 || s == s1) break;
    const double a = n0 / (s + r0), b = n1 / (s + r1), c = z2 / (s + 1);
    const double f = a * a + b * b + c * c - 1;
    if (f > 0) s0 = s;
    else if (f < 0) s1 = s;
    else break;
  }
  return s;
}

// e0 ≥ e1 > 0, y ≥ 0.
double ellipse(double e0, double e1, double y0, double y1, double& x0, double& x1) {
  if (y1 > 0) {
    if (y0 > 0) {
      const double z0 = y0 / e0, z1 = y1 / e1, g = z0 * z0 + z1 * z1 - 1;
      if (g != 0) {
        const double r0 = (e0 / e1) * (e0 / e1);
        const double s = root_2d(r0, z0, z1, g);
        x0 = r0 * y0 / (s + r0);
        x1 = y1 / (s + 1);
        return std::hypot(x0 - y0, x1 - y1);
      }
      x0 = y0;
      x1 = y1;
      return 0;
    }
    x0 = 0;
    x1 = e1;
    return std::abs(y1 - e1);
  }
  const double numer0 = e0 * y0, denom0 = e0 * e0 - e1 * e1;
  if (numer0 < denom0) {
    const double xde0 = numer0 / denom0;
    x0 = e0 * xde0;
    x1 = e1 * std::sqrt(std::max(0.0, 1 - xde0 * xde0));
    return std::hypot(x0 - y0, x1);
  }
  x0 = e0;
  x1 = 0;
  return std::abs(y0 - e0);
}

// e0 ≥ e1 ≥ e2 > 0, y ≥ 0.
double ellipsoid(const double e[3], const double y[3], double x[3]) {
  if (y[2] > 0) {
    if (y[1] > 0) {
      if (y[0] > 0) {
        const double z0 = y[0] / e[0], z1 = y[1] / e[1], z2 = y[2] / e[2];
        const double g = z0 * z0 + z1 * z1 + z2 * z2 - 1;
        if (g != 0) {
          const double r0 = (e[0] / e[2]) * (e[0] / e[2]), r1 = (e[1] / e[2]) * (e[1] / e[2]);
          const double s = root_3d(r0, r1, z0, z1, z2, g);
          x[0] = r0 * y[0] / (s + r0);
          x[1] = r1 * y[1] / (s + r1);
          x[2] = y[2] / (s + 1);
          return robust_length(x[0] - y[0], x[1] - y[1], x[2] - y[2]);
        }
        x[0] = y[0];
        x[1] = y[1];
        x[2] = y[2];
        return 0;
      }
      x[0] = 0;
      return ellipse(e[1], e[2], y[1], y[2], x[1], x[2]);
    }
    x[1] = 0;
    if (y[0] > 0) return ellipse(e[0], e[2], y[0], y[2], x[0], x[2]);
    x[0] = 0;
    x[2] = e[2];
    return std::abs(y[2] - e[2]);
  }
  const double denom0 = e[0] * e[0] - e[2] * e[2], denom1 = e[1] * e[1] - e[2] * e[2];
  const double numer0 = e[0] * y[0], numer1 = e[1] * y[1];
  if (numer0 < denom0 && numer1 < denom1) {
    const double xde0 = numer0 / denom0, xde1 = numer1 / denom1;
    const double discr = 1 - xde0 * xde0 - xde1 * xde1;
    if (discr > 0) {
      x[0] = e[0] * xde0;
      x[1] = e[1] * xde1;
      x[2] = e[2] * std::sqrt(discr);
      return robust_length(x[0] - y[0], x[1] - y[1], x[2]);
    }
  }
  x[2] = 0;
  return ellipse(e[0], e[1], y[0], y[1], x[0], x[1]);
}

void finish(const Pose& pose, const Vec3& q_point, const Vec3& q_normal, double distance,
            ShapeProximity& out) {
  out.distance = distance;
  out.point = pose.apply(q_point);
  out.normal = pose.rotate(q_normal);
}

// Point q against a segment core of radius r (sphere: a == b).
void rounded_segment(const Vec3& q, const Vec3& a, const Vec3& b, double r, Vec3& point,
                     Vec3& normal, double& distance) {
  const Vec3 c = closest_point_on_segment(q, a, b);
  const Vec3 d = q - c;
  const double len = d.norm();
  normal = len > 0 ? Vec3(d / len) : (a == b ? Vec3(Vec3::UnitZ()) : any_orthogonal(b - a));
  point = c + r * normal;
  distance = len - r;
}

}  // namespace

Vec3 closest_point_on_ellipsoid(const Vec3& radii, const Vec3& q, double* distance, bool* inside) {
  std::array<int, 3> axis = {0, 1, 2};
  std::sort(axis.begin(), axis.end(), [&](int a, int b) {
    if (radii[a] != radii[b]) return radii[a] > radii[b];
    return a < b;
  });
  double e[3], y[3], x[3];
  for (int k = 0; k < 3; ++k) {
    e[k] = radii[axis[k]];
    y[k] = std::abs(q[axis[k]]);
  }
  const double d = ellipsoid(e, y, x);
  Vec3 result;
  for (int k = 0; k < 3; ++k) result[axis[k]] = std::copysign(x[k], q[axis[k]]);
  if (distance) *distance = d;
  if (inside) {
    const Vec3 z = q.cwiseQuotient(radii);
    *inside = z.squaredNorm() < 1;
  }
  return result;
}

bool point_shape_proximity(const Shape& shape, const Pose& pose, const Vec3& x, const Vec3& x_prev,
                           double max_distance, ShapeProximity& out) {
  const Vec3 q = pose.inverse_apply(x);
  Vec3 point, normal;
  double distance = std::numeric_limits<double>::infinity();
  switch (shape.type) {
    case ShapeType::Sphere:
      rounded_segment(q, Vec3::Zero(), Vec3::Zero(), shape.radius, point, normal, distance);
      break;
    case ShapeType::Capsule:
      rounded_segment(q, Vec3(0, 0, -shape.half_length), Vec3(0, 0, shape.half_length),
                      shape.radius, point, normal, distance);
      break;
    case ShapeType::Box: {
      const Vec3& h = shape.half_extents;
      const Vec3 c = q.cwiseMax(-h).cwiseMin(h);
      if (c != q) {
        const Vec3 d = q - c;
        distance = d.norm();
        normal = d / distance;
        point = c;
      } else {
        // Inside: the nearest face.
        int k = 0;
        double best = h[0] - std::abs(q[0]);
        for (int i = 1; i < 3; ++i) {
          if (h[i] - std::abs(q[i]) < best) {
            best = h[i] - std::abs(q[i]);
            k = i;
          }
        }
        normal = Vec3::Zero();
        normal[k] = q[k] < 0 ? -1.0 : 1.0;
        point = q;
        point[k] = normal[k] * h[k];
        distance = -best;
      }
      break;
    }
    case ShapeType::Ellipsoid: {
      bool inside = false;
      double d = 0;
      point = closest_point_on_ellipsoid(shape.radii, q, &d, &inside);
      normal = point.cwiseQuotient(shape.radii.cwiseProduct(shape.radii));
      const double len = normal.norm();
      normal = len > 0 ? Vec3(normal / len) : Vec3(Vec3::UnitZ());
      distance = inside ? -d : d;
      break;
    }
    case ShapeType::Convex: {
      const ConvexHull& hull = *shape.hull;
      double s = -std::numeric_limits<double>::infinity();
      int face = -1;
      for (size_t f = 0; f < hull.faces.size(); ++f) {
        const double sf = hull.faces[f].normal.dot(q) - hull.faces[f].offset;
        if (sf > s) {
          s = sf;
          face = static_cast<int>(f);
        }
      }
      if (face < 0 || s >= max_distance) return false;  // the distance is at least s
      if (s <= 0) {
        normal = hull.faces[face].normal;
        point = q - s * normal;
        distance = s;
      } else {
        for (const auto& tri : hull.triangles) {
          PointTriangleClosest cl =
              closest_point_triangle(q, hull.vertices[tri[0]], hull.vertices[tri[1]], hull.vertices[tri[2]]);
          if (cl.distance < distance) {
            distance = cl.distance;
            point = cl.point;
          }
        }
        normal = distance > 0 ? Vec3((q - point) / distance) : hull.faces[face].normal;
      }
      break;
    }
    case ShapeType::Mesh: {
      const TriangleMesh& mesh = *shape.mesh;
      const Vec3 qp = pose.inverse_apply(x_prev);
      Aabb query;
      query.grow(q);
      query.grow(qp);
      query = query.inflated(max_distance);
      double best_cross = std::numeric_limits<double>::infinity();
      int best_tri = -1, cross_tri = -1;
      auto visit = [&](int t) {
        const auto& tri = mesh.triangles[t];
        const Vec3 &a = mesh.vertices[tri[0]], &b = mesh.vertices[tri[1]], &c = mesh.vertices[tri[2]];
        PointTriangleClosest cl = closest_point_triangle(q, a, b, c);
        if (cl.distance < distance) {
          distance = cl.distance;
          point = cl.point;
          best_tri = t;
        }
        // Crossing of the step's segment through the triangle: the earliest one wins.
        const Vec3 n = (b - a).cross(c - a);
        const double sp = n.dot(qp - a), sq = n.dot(q - a);
        if ((sp > 0 && sq <= 0) || (sp < 0 && sq >= 0)) {
          const double lambda = sp / (sp - sq);
          const Vec3 hit = qp + lambda * (q - qp);
          PointTriangleClosest ch = closest_point_triangle(hit, a, b, c);
          if (ch.distance <= 1e-12 * (1.0 + hit.norm()) && lambda < best_cross) {
            best_cross = lambda;
            cross_tri = t;
          }
        }
      };
      if (!mesh.bvh.nodes.empty()) {
        mesh.bvh.query(query, visit);
      } else {
        for (int t = 0; t < static_cast<int>(mesh.triangles.size()); ++t) visit(t);
      }
      if (cross_tri >= 0) {
        const auto& tri = mesh.triangles[cross_tri];
        const Vec3 &a = mesh.vertices[tri[0]], &b = mesh.vertices[tri[1]], &c = mesh.vertices[tri[2]];
        Vec3 n = (b - a).cross(c - a).normalized();
        if (n.dot(qp - a) < 0) n = -n;
        distance = n.dot(q - a);  // ≤ 0: behind the crossed triangle
        normal = n;
        point = q - distance * n;
      } else if (best_tri >= 0) {
        if (distance > 1e-12) {
          normal = (q - point) / distance;
        } else {
          const auto& tri = mesh.triangles[best_tri];
          const Vec3 &a = mesh.vertices[tri[0]], &b = mesh.vertices[tri[1]], &c = mesh.vertices[tri[2]];
          normal = (b - a).cross(c - a).normalized();
          if (normal.dot(qp - a) < 0) normal = -normal;
        }
      } else {
        return false;
      }
      break;
    }
    case ShapeType::Plane: {
      const Vec3& n = shape.normal;
      distance = n.dot(q) - shape.offset;
      normal = n;
      point = q - distance * n;
      break;
    }
  }
  if (!(distance < max_distance)) return false;
  finish(pose, point, normal, distance, out);
  return true;
}

}  // namespace impetus
