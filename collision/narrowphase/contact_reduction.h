#pragma once
// Reduction of candidate contact points to a small manifold that keeps the deepest point and
// the widest spread (the support polygon a resting body needs).
#include <cstdint>

#include "collision/narrowphase/contact.h"

namespace impetus {

/// Keeps at most 4 of points[0..n) in points[0..k), returns k: the deepest point (lowest
/// separation; among equally deep ones the farthest from the centroid), the point farthest
/// from it, the point spanning the largest triangle with those two, then the point farthest
/// outside that triangle. Equal scores (within a relative 1e-9) go to the deeper point, then
/// to the earlier one, so that the kept set does not depend on rounding. For one-normal
/// manifolds; positions are point_a.
int reduce_to_four(ContactPoint* points, int n);

/// Mesh manifolds (a normal per point): drops points closer than `merge_distance` to a deeper
/// kept point with a similar normal, then keeps at most `max_points`: deepest first, then
/// repeatedly the point farthest from those kept. Returns the count kept in points[0..k).
int reduce_spread(ContactPoint* points, int n, int max_points, double merge_distance);

/// Mixes feature indices into one 32-bit feature id (deterministic, order-sensitive).
inline std::uint32_t feature_hash(std::uint32_t h, std::uint32_t x) {
  // FNV-1a over the 4 bytes of x.
  for (int k = 0; k < 4; ++k) {
    h ^= (x >> (8 * k)) & 0xffu;
    h *= 16777619u;
  }
  return h;
}
inline constexpr std::uint32_t kFeatureSeed = 2166136261u;

}  // namespace impetus
