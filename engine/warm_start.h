#pragma once
// Warm starting of contact points from the previous step's impulses: the records, their keys,
// and how a pair's new points find their records.
#include <cstdint>
#include <vector>

#include "dynamics/contact_constraint.h"
#include "dynamics/rigid_body.h"

namespace impetus {

/// Warm-start key of a contact point: (pair, feature) → 64 bits, 22 bits per body index, 20 bits
/// of feature. Feature ids are folded so distinct features of one pair rarely collide; a
/// collision only degrades warm starting.
inline std::uint64_t contact_key(int a, int b, std::uint32_t feature) {
  std::uint64_t f = (feature ^ (feature >> 20)) & 0xFFFFFu;
  return (static_cast<std::uint64_t>(a) << 42) | (static_cast<std::uint64_t>(b) << 20) | f;
}
/// True when two contact_keys name the same pair of bodies.
inline bool contact_key_same_pair(std::uint64_t a, std::uint64_t b) { return (a >> 20) == (b >> 20); }
/// True when the contact_key names body `body` as either of its two bodies.
inline bool contact_key_has_body(std::uint64_t key, int body) {
  const auto index = static_cast<std::uint64_t>(body);
  return (key >> 42) == index || ((key >> 20) & 0x3FFFFFu) == index;
}

/// Warm-start record of one contact point, keyed by (pair, feature).
struct CachedImpulse {
  std::uint64_t key = 0;
  // The point in body a's frame and the normal: a point whose feature changed is warm-started
  // from its pair's nearest unclaimed record with nearly the same normal.
  Vec3 anchor_a = Vec3::Zero();
  Vec3 normal_direction = Vec3::Zero();
  double normal = 0;
  double tangent[2] = {0, 0};
  std::uint8_t mode = 1;
  std::uint32_t order = 0;  // position before sorting: equal keys keep it (sort_warm_cache)
  bool operator<(const CachedImpulse& other) const { return key < other.key; }
};

/// The warm-start record of a solved contact.
inline CachedImpulse cached_impulse(const ContactConstraint& c) {
  CachedImpulse entry;
  entry.key = c.key;
  entry.anchor_a = c.anchor_a;
  entry.normal_direction = c.normal;
  entry.normal = c.normal_impulse;
  entry.tangent[0] = c.tangent_impulse[0];
  entry.tangent[1] = c.tangent_impulse[1];
  entry.mode = c.mode;
  return entry;
}

/// Sorts by key, equal keys in their present order, as std::stable_sort would but without its
/// temporary buffer (a heap allocation every step): the lookups then pick the same entry on
/// every run.
void sort_warm_cache(std::vector<CachedImpulse>& cache);

/// A contact point without a record of its own feature takes over the nearest record of its
/// pair that no point took, within this fraction of the pair's smaller shape size
/// (smallest_size) in body a's frame, and with a normal within about 25° of its own.
inline constexpr double kWarmMatchFraction = 0.2;
inline constexpr double kWarmMatchNormalCos = 0.9;

/// Warm-starts one pair's new contact points (keys, normals, tangents and anchors set) from
/// that pair's records of the last step, [first, end) sorted by key: each point from the record
/// of its own key, then each point left without one from the nearest record within `reach`
/// [m] (in body a's frame) that no other point took, with nearly the same normal. Why: box
/// clipping gives a point another feature id when the boxes turn a little (13% of the points
/// of touching pairs in pile_boxes_1k), and a loaded point that starts from zero takes many
/// sweeps to carry its load again. The taken record's friction impulse is turned into the
/// point's own tangent basis.
/// `count` ≤ kMaxWarmStartPoints.
inline constexpr int kMaxWarmStartPoints = 32;
void warm_start_pair(const CachedImpulse* first, const CachedImpulse* end, double reach,
                     ContactConstraint* points, int count);

}  // namespace impetus
