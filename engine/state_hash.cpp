#include "engine/state_hash.h"

#include <cstdio>
#include <cstring>

namespace impetus {

void StateHasher::add(double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  // Little-endian byte order regardless of the host.
  for (int i = 0; i < 8; ++i) {
    hash_ ^= (bits >> (8 * i)) & 0xffU;
    hash_ *= 0x100000001b3ULL;  // FNV-1a 64-bit prime
  }
}

void StateHasher::add(const double* values, int count) {
  for (int i = 0; i < count; ++i) add(values[i]);
}

std::string StateHasher::hex() const {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash_));
  return buffer;
}

}  // namespace impetus
