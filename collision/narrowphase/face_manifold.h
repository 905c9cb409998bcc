#pragma once
// Face manifolds by clipping: the supporting feature of each shape along the contact normal
// (a polygon, an edge/segment or a single point), the better-aligned polygon as the reference
// face, the other feature clipped against the reference face's side planes (Sutherland–Hodgman)
// and kept where it lies below the reference plane + margin.
#include <array>
#include <cstdint>

#include "collision/base/math.h"
#include "collision/narrowphase/contact.h"
#include "collision/shape/shape.h"

namespace impetus {

/// The feature of a convex shape farthest along a direction, in world coordinates.
struct SupportFace {
  static constexpr int kMaxVertices = 64;
  std::array<Vec3, kMaxVertices> vertices;  // polygon CCW seen from outside, segment, or point
  std::array<std::uint32_t, kMaxVertices> ids{};  // the shape's vertex ids (feature ids)
  int count = 0;                 // 0: none, 1: a point, 2: a segment, >= 3: a polygon
  Vec3 normal = Vec3::UnitZ();   // outward unit normal (polygons)
  double radius = 0;             // ball swept over the feature (capsule), else 0
  std::uint32_t face_id = 0;     // which face/edge of the shape
};

/// Supporting feature of a convex shape along world direction `dir` (pointing out of the shape
/// towards the other one): box and hull faces, the capsule's core segment (radius set) when it
/// lies within 5 degrees of perpendicular to dir, and count = 0 otherwise (tilted capsules,
/// smooth shapes, hull faces over kMaxVertices).
void support_face(const Shape& shape, const Pose& pose, const Vec3& dir, SupportFace& out);

/// A triangle as a face seen from `dir`: its front (CCW) side when the normal faces dir, else
/// the reversed back side.
void triangle_face(const Vec3& p0, const Vec3& p1, const Vec3& p2, const Vec3& dir,
                   std::uint32_t face_id, std::array<std::uint32_t, 3> ids, SupportFace& out);

/// cos of the largest angle between a face normal and the contact normal for that face to be
/// used as the reference face.
inline constexpr double kFaceAlignCos = 0.99995;  // ~0.6 degrees

/// Contact points of face `fa` of a (supporting along `normal`) and `fb` of b (along −normal),
/// normal unit a → b. Fails (returns 0) when neither is a polygon aligned with the normal
/// within kFaceAlignCos, or the other is a single point, or nothing survives clipping.
/// Otherwise writes up to 4 points (deepest and widest spread) to `out`, all with the
/// reference face's normal oriented a → b, separations < margin, and returns their count.
int clip_face_contacts(const SupportFace& fa, const SupportFace& fb, const Vec3& normal,
                       double margin, std::array<ContactPoint, 4>& out);

/// Same clipping with the reference face chosen by the caller (box–box SAT): `ref` is a face
/// of a when ref_is_a, else of b; `inc` is the other shape's supporting feature.
int clip_against_reference(const SupportFace& ref, const SupportFace& inc, bool ref_is_a,
                           double margin, std::array<ContactPoint, 4>& out);

/// The contact of a convex pair whose signed distance is known (distance < margin, witnesses,
/// normal a → b): the clipped face manifold when clip_face_contacts succeeds, else the single
/// witness pair (feature id 0). Returns the number of points written.
int convex_contact_points(const SupportFace& fa, const SupportFace& fb, const Vec3& normal,
                          double distance, const Vec3& point_a, const Vec3& point_b,
                          double margin, std::array<ContactPoint, 4>& out);

}  // namespace impetus
