#include "collision/shape/point_in_mesh.h"

#include <cmath>

namespace impetus {

double mesh_winding_number(const TriangleMesh& mesh, const Vec3& x) {
  // Solid angle of triangle (a, b, c) seen from the origin (Van Oosterom and Strackee 1983):
  // tan(Ω/2) = a·(b×c) / (|a||b||c| + (a·b)|c| + (b·c)|a| + (c·a)|b|).
  double total = 0;
  for (const auto& t : mesh.triangles) {
    Vec3 a = mesh.vertices[t[0]] - x;
    Vec3 b = mesh.vertices[t[1]] - x;
    Vec3 c = mesh.vertices[t[2]] - x;
    double la = a.norm();
    double lb = b.norm();
    double lc = c.norm();
    double num = a.dot(b.cross(c));
    double den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    total += 2.0 * std::atan2(num, den);
  }
  return total / (4.0 * kPi);
}

}  // namespace impetus
