#pragma once
// state_hash of summary.json: 64-bit FNV-1a over the exact bytes of the final state
// (output-format.md): per body in scene order position, orientation [w,x,y,z], linear and
// angular velocity as little-endian IEEE doubles, then every cloth's vertex positions.
#include <cstdint>
#include <string>

namespace impetus {

class StateHasher {
 public:
  void add(double value);
  void add(const double* values, int count);
  /// 16 lower-case hex digits.
  std::string hex() const;

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;  // FNV-1a 64-bit offset basis
};

}  // namespace impetus
