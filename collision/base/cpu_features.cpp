#include "collision/base/cpu_features.h"

#include <cstdlib>
#include <cstring>

namespace impetus {
namespace {

bool detect_avx2() {
  const char* off = std::getenv("IMPETUS_NO_AVX2");
  if (off != nullptr && *off != '\0' && std::strcmp(off, "0") != 0) return false;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
#else
  return false;
#endif
}

}  // namespace

bool cpu_has_avx2() {
  static const bool available = detect_avx2();
  return available;
}

}  // namespace impetus
