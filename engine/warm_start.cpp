// Warm starting of contact points (engine/warm_start.h).
#include "engine/warm_start.h"

#include "collision/base/nearly_sorted.h"

namespace impetus {

void sort_warm_cache(std::vector<CachedImpulse>& cache) {
  for (std::size_t i = 0; i < cache.size(); ++i) cache[i].order = static_cast<std::uint32_t>(i);
  auto before = [](const CachedImpulse& a, const CachedImpulse& b) {
    return a.key != b.key ? a.key < b.key : a.order < b.order;
  };
  // The step's contacts come pair by pair in pair order, and a key leads with its pair, so
  // only a pair's few points can be out of order (std::sort was a serial 1% of
  // pile_spheres_1k's step). (key, order) is a total order.
  sort_nearly_sorted(cache.begin(), cache.end(), before, 4);
}

void warm_start_pair(const CachedImpulse* first, const CachedImpulse* end, double reach,
                     ContactConstraint* points, int count) {
  // Records taken by a point (a manifold has at most 8 points; records past 64 are not taken).
  std::uint64_t claimed = 0;
  auto is_claimed = [&](const CachedImpulse* r) {
    const auto slot = r - first;
    return slot >= 64 || ((claimed >> slot) & 1) != 0;
  };
  auto claim = [&](const CachedImpulse* r, ContactConstraint& c) {
    const auto slot = r - first;
    if (slot < 64) claimed |= std::uint64_t{1} << slot;
    c.normal_impulse = r->normal;
    c.tangent_impulse[0] = r->tangent[0];
    c.tangent_impulse[1] = r->tangent[1];
    c.mode = r->mode;
  };
  std::uint32_t unmatched = 0;  // points without a record of their own key (bit p < 32)
  for (int p = 0; p < count; ++p) {
    ContactConstraint& c = points[p];
    // Records are sorted by key: the first one not below the point's key.
    const CachedImpulse* r = first;
    while (r != end && r->key < c.key) ++r;
    if (r != end && r->key == c.key) claim(r, c);
    else unmatched |= std::uint32_t{1} << p;
  }
  if (unmatched == 0 || first == end) return;
  for (int p = 0; p < count; ++p) {
    if (((unmatched >> p) & 1) == 0) continue;
    ContactConstraint& c = points[p];
    const CachedImpulse* nearest = end;
    double best = reach * reach;
    for (const CachedImpulse* r = first; r != end; ++r) {
      if (is_claimed(r) || r->normal_direction.dot(c.normal) < kWarmMatchNormalCos) continue;
      const double d2 = (r->anchor_a - c.anchor_a).squaredNorm();
      if (d2 < best) {
        best = d2;
        nearest = r;
      }
    }
    if (nearest == end) continue;
    claim(nearest, c);
    // The record's friction impulse, in its own tangent basis, into this point's basis.
    Vec3 t1, t2;
    contact_tangents(nearest->normal_direction, t1, t2);
    const Vec3 friction = t1 * nearest->tangent[0] + t2 * nearest->tangent[1];
    c.tangent_impulse[0] = friction.dot(c.tangent1);
    c.tangent_impulse[1] = friction.dot(c.tangent2);
  }
}

}  // namespace impetus
