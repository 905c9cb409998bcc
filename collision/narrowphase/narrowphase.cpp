// The narrowphase dispatch: one table of pair algorithms indexed by (type of a, type of b),
// filled for one order of each pair; the other order runs the same algorithm with a and b
// swapped and the result flipped (cf. mujoco's mjCOLLISIONFUNC).
#include "collision/narrowphase/narrowphase.h"

#include <array>
#include <utility>

#include "collision/narrowphase/contact_ellipsoid_ellipsoid.h"
#include "collision/narrowphase/contact_pairs.h"

namespace impetus {
namespace {

constexpr int kTypes = kShapeTypeCount;

// Signature of one pair algorithm; the table entry for (type a, type b).
using CollideFn = bool (*)(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                           double margin, Manifold& manifold);

int index_of(ShapeType t) { return static_cast<int>(t); }

struct Table {
  std::array<std::array<CollideFn, kTypes>, kTypes> fn{};

  void set(ShapeType a, ShapeType b, CollideFn f) { fn[index_of(a)][index_of(b)] = f; }

  Table() {
    using T = ShapeType;
    set(T::Sphere, T::Sphere, collide_sphere_sphere);
    set(T::Sphere, T::Capsule, collide_sphere_capsule);
    set(T::Sphere, T::Box, collide_sphere_box);
    set(T::Sphere, T::Ellipsoid, collide_convex_convex);
    set(T::Sphere, T::Convex, collide_convex_convex);
    set(T::Capsule, T::Capsule, collide_capsule_capsule);
    set(T::Capsule, T::Box, collide_convex_convex);  // GJK on the core segment + face clipping
    set(T::Capsule, T::Ellipsoid, collide_convex_convex);
    set(T::Capsule, T::Convex, collide_convex_convex);
    set(T::Box, T::Box, collide_box_box);
    set(T::Box, T::Ellipsoid, collide_convex_convex);
    set(T::Box, T::Convex, collide_convex_convex);
    // Paper 1's closest-approach method along the centre line.
    set(T::Ellipsoid, T::Ellipsoid, collide_ellipsoid_ellipsoid);
    set(T::Ellipsoid, T::Convex, collide_convex_convex);
    set(T::Convex, T::Convex, collide_convex_convex);
    for (T t : {T::Sphere, T::Capsule, T::Box, T::Ellipsoid, T::Convex}) {
      set(T::Mesh, t, collide_mesh_convex);
    }
    for (T t : {T::Sphere, T::Capsule, T::Box, T::Ellipsoid, T::Convex, T::Mesh}) {
      set(T::Plane, t, collide_plane_shape);
    }
    // Mesh–mesh and plane–plane: no entry, no contacts.
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

bool collide(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b, double margin,
             Manifold& manifold) {
  manifold.clear();
  const Table& t = table();
  if (CollideFn f = t.fn[index_of(a.type)][index_of(b.type)]) {
    return f(a, pose_a, b, pose_b, margin, manifold);
  }
  CollideFn g = t.fn[index_of(b.type)][index_of(a.type)];
  if (g == nullptr) return false;
  bool hit = g(b, pose_b, a, pose_a, margin, manifold);
  // Seen from a: swap the witnesses and turn the normals around; separations are unchanged.
  for (int i = 0; i < manifold.count; ++i) {
    ContactPoint& c = manifold.points[i];
    std::swap(c.point_a, c.point_b);
    c.normal = -c.normal;
  }
  return hit;
}

}  // namespace impetus
