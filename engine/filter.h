#pragma once
// Collision filtering (issue 15), with Box2D's rule: two bodies collide when each one's category
// is in the other's mask; a shared non-zero group overrides that: the same positive group always
// collides, the same negative group never does. Queries filter bodies with the same bits.
#include <cstdint>

namespace impetus {

struct Filter {
  std::uint64_t category = 0x1;  // the bits this body is
  std::uint64_t mask = ~std::uint64_t{0};  // the bits it collides with
  int group = 0;                 // 0: no group; > 0: always with its group; < 0: never
  bool operator==(const Filter&) const = default;
};

/// What a query (ray cast, overlap, shape cast) may report: a body passes when its category is in
/// `mask` and the query's category is in the body's mask.
struct QueryFilter {
  std::uint64_t category = 0x1;
  std::uint64_t mask = ~std::uint64_t{0};
  bool include_sensors = false;  // sensor bodies (BodyDef::is_sensor) are skipped unless set
  bool include_cloth = false;    // ray casts: cloth triangles too (RayHit::cloth); category and
                                 // mask do not apply to cloth
};

/// True when bodies with filters a and b may touch (the rule above).
inline bool should_collide(const Filter& a, const Filter& b) {
  if (a.group == b.group && a.group != 0) return a.group > 0;
  return (a.category & b.mask) != 0 && (b.category & a.mask) != 0;
}

/// True when a query with `query` may report a body with filter `body`.
inline bool query_accepts(const QueryFilter& query, const Filter& body) {
  return (query.mask & body.category) != 0 && (body.mask & query.category) != 0;
}

}  // namespace impetus
