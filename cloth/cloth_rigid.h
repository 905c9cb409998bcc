#pragma once
// Cloth–rigid contact, after the implicit solve and before self-collision.
//
// First, continuously (issue 16: a fast body must not pass through the sheet within a step):
// every cloth triangle near a moving convex body is swept against it in the body's frame, where
// the body stands still and the triangle's corners move from their start positions (seen from
// the body's pose at the start of the step) to their end positions (seen from its end pose).
// Conservative advancement on the GJK distance (Mirtich's CA; the bound is the fastest corner's
// relative motion) finds the first time the two come within the thickness; the closest points
// there give a plane that separates them, and every free corner of the triangle ends the step
// at least the thickness beyond that plane, on the side it came from — so whether the body
// moved through the cloth or the cloth through the body, neither crosses the other's surface
// (vertex, edge or face: the triangle is the whole primitive). Triangles whose corners move
// less than max(thickness, 0.1 · the body's smallest size) relative to the body keep to the
// discrete tests below, which pick the right side for such small motions.
//
// Then, at the end of the step: every free cloth vertex against every collider; then the features a coarse cloth can straddle between its
// vertices: cloth edges against every shape but the plane (the closest point of the edge to a
// sphere, a capsule or a thin rod; for box, ellipsoid, convex and mesh the signed distance of
// the edge as a zero-radius capsule), and the corners of boxes, convex hulls and meshes against
// cloth triangles (a box edge or corner poking into a cloth face). A vertex closer than the thickness to a shape (at the end
// of the step, x0 + u) is pushed out along the shape normal on its displacement only (no
// velocity is added, so contact does not bounce), its velocity relative to the body loses its
// approaching normal part (inelastic) and up to μ times that much of its tangential part
// (Coulomb friction, sticking or sliding), and the opposite momentum change goes back to the
// body as a RigidImpulse at the contact point.
#include <array>
#include <span>
#include <vector>

#include "cloth/rigid_collider.h"

namespace impetus {

struct ClothRigidSettings {
  double h = 1.0 / 240.0;
  double thickness = 0.005;
  double friction = 0.3;  // the cloth's μ
  int threads = 0;
  // Cloth triangles for the rigid-corner ↔ cloth-face contacts (none without them).
  const std::vector<std::array<int, 3>>* triangles = nullptr;
  // When set (one flag per vertex): a pass over the elements (vertices, edges, triangles) with
  // at least one flagged vertex only, for a second pass after a correction that moved those
  // vertices; the others, resolved by the first pass and not moved since, keep their state and
  // their contact records in the workspace.
  const std::vector<char>* active_vertices = nullptr;
};

struct ClothRigidStats {
  int swept_contacts = 0;  // triangles caught by the continuous test
  int contacts = 0;       // vertices in contact
  int edge_contacts = 0;  // edges in contact at an interior point
  int face_contacts = 0;  // rigid corners in contact with the interior of a cloth triangle
  double max_penetration = 0;  // deepest (thickness − distance) found before the push-out
};

/// Per-step scratch of resolve_cloth_rigid, kept by the caller so that a step allocates
/// nothing once the arrays have grown to the cloth's size.
struct ClothRigidWorkspace {
  std::vector<Aabb> collider_boxes;  // end pose, inflated by the thickness
  std::vector<double> mu;
  std::vector<std::array<RigidImpulse, 4>> slots;  // per vertex
  std::vector<int> slot_count;
  std::vector<double> depth;
  std::vector<Aabb> triangle_boxes;
  std::vector<std::array<Vec3, 2>> cores;  // per collider: core segment of a sphere or capsule
  std::vector<double> reach;  // per collider: bounding_radius(shape), about its origin
  std::vector<char> slow;  // per vertex: surely slower relative to the body than the swept gate
  // Output, per vertex: the collider of its last contact this step (−1: none) and the contact
  // point on the body.
  std::vector<int> contact_collider;
  std::vector<Vec3> contact_point;
};

/// Updates u (displacement of the step) and v (end velocity) of the vertices with
/// inv_mass > 0; appends the reactions on the bodies (swept contacts in collider then triangle
/// order, then vertex order, collider order, then the edge and face contacts in their order).
/// `edges` may be empty (vertices only).
void resolve_cloth_rigid(const std::vector<Vec3>& x0, std::vector<Vec3>& u, std::vector<Vec3>& v,
                         const std::vector<double>& mass, const std::vector<double>& inv_mass,
                         const std::vector<std::array<int, 2>>& edges,
                         std::span<const RigidCollider> colliders, const ClothRigidSettings& settings,
                         ClothRigidWorkspace& work, std::vector<RigidImpulse>& reactions,
                         ClothRigidStats& stats);

}  // namespace impetus
