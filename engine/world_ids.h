#pragma once
// The World's handles (engine/world.h): a slot index plus a generation. A slot freed by a
// destroy call is reused by the next create of its kind with the generation one higher, so an
// id kept past its object's destruction is recognised as stale (World::is_valid is false and
// every other function rejects it) instead of silently naming the newcomer.
#include <cstdint>

namespace impetus {

/// Body handle: slot index plus generation (the first body in a slot has generation 1).
struct BodyId {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;  // 0 = null id (in JointDef: the world)
  bool operator==(const BodyId&) const = default;
};

/// Joint and cloth handles, like BodyId: slot index plus generation (0 = null id).
struct JointId {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;
  bool operator==(const JointId&) const = default;
};
struct ClothId {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;
  bool operator==(const ClothId&) const = default;
};

}  // namespace impetus
