#include "tools/bench/bench.h"

#include <algorithm>
#include <cstddef>
#include <limits>

namespace impetus::bench {

double median(std::vector<double> values) {
  std::size_t n = values.size();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();  // contract breach; shows as null
  std::size_t mid = n / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  double upper = values[mid];
  if (n % 2 == 1) return upper;
  // Even count: mean of the two middle values; after nth_element the lower one is the largest
  // element of the first half.
  double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

}  // namespace impetus::bench
