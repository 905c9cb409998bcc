#pragma once
// Refilling a scratch vector that is kept between steps, growing it geometrically.
//
// Why: std::vector::assign(n, value) and copy assignment allocate exactly n elements when n
// exceeds the capacity. A buffer sized by an island that grows by a few contacts a step then
// allocates on every step that sets a new largest size (pile_boxes_10k: each island solver's
// copies of its body and contact lists, its structure record and its ordering scratch; about
// 70 allocations a step after 700 steps). Growing by at least half the capacity makes such
// growth a logarithmic number of allocations.
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <type_traits>
#include <vector>

namespace impetus {

/// Makes room for n elements: no allocation when n fits, else capacity max(n, 1.5 × capacity).
template <class T>
void reserve_growing(std::vector<T>& v, std::size_t n) {
  if (n > v.capacity()) v.reserve(std::max(n, v.capacity() + v.capacity() / 2));
}

/// v.resize(n). (resize also allocates exactly n when the vector was shrunk below its
/// capacity before: it grows from the size, not from the capacity.)
template <class T>
void resize_growing(std::vector<T>& v, std::size_t n) {
  reserve_growing(v, n);
  v.resize(n);
}

/// v = n copies of value.
template <class T>
void assign_growing(std::vector<T>& v, std::size_t n, const std::type_identity_t<T>& value) {
  reserve_growing(v, n);
  v.assign(n, value);
}

/// v = [first, last) of a forward range.
template <class T, class It>
void copy_growing(std::vector<T>& v, It first, It last) {
  reserve_growing(v, static_cast<std::size_t>(std::distance(first, last)));
  v.assign(first, last);
}

/// v = source.
template <class T>
void copy_growing(std::vector<T>& v, const std::vector<T>& source) {
  copy_growing(v, source.begin(), source.end());
}

}  // namespace impetus
