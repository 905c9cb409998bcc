#pragma once
// Helpers shared by the cloth tests: seeded random vectors and small scenes.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "cloth/cloth_mesh.h"
#include "cloth/cloth_sim.h"
#include "cloth/rigid_collider.h"
#include "collision/base/math.h"
#include "collision/distance/point_shape_distance.h"
#include "tests/random_draws.h"

namespace impetus::cloth_test {

// One draw per statement (tests/random_draws.h): GCC and clang draw the same cases.
inline Vec3 random_vec(std::mt19937_64& rng, double lo = -1.0, double hi = 1.0) {
  return test::random_vector(rng, lo, hi);
}

using test::random_unit;
using test::uniform;

/// Parameters of the shared benchmark scenes (cloth_hang_64.json / cloth_drape_sphere.json).
inline ClothParams scene_params() {
  ClothParams p;
  p.areal_density = 0.3;
  p.stretch_stiffness = 5000;
  p.shear_stiffness = 500;
  p.bend_stiffness = 0.001;
  p.damping = 0.01;
  p.thickness = 0.004;
  p.friction = 0.3;
  // Serial by default: these tests run beside other builds on 2 cores, where every OpenMP
  // barrier can wait a scheduler tick. Determinism across thread counts has its own test.
  p.threads = 1;
  return p;
}

inline RigidCollider static_collider(int body, const Shape& shape, const Vec3& position,
                                     double friction = 0.5) {
  RigidCollider c;
  c.body = body;
  c.shape = shape;
  c.pose.position = position;
  c.center_of_mass = position;
  c.friction = friction;
  return c;
}

/// Smallest signed distance from any vertex to any collider.
inline double min_signed_distance(const std::vector<Vec3>& x, std::span<const RigidCollider> colliders) {
  double best = std::numeric_limits<double>::infinity();
  for (const Vec3& p : x) {
    for (const RigidCollider& c : colliders) {
      ShapeProximity prox;
      if (point_shape_proximity(c.shape, c.pose, p, p, std::numeric_limits<double>::infinity(), prox))
        best = std::min(best, prox.distance);
    }
  }
  return best;
}

}  // namespace impetus::cloth_test
