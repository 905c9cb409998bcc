#pragma once
// Sorting data that is almost in order already (last step's order of things that moved a
// little): an insertion sort costs the elements plus the moves it makes, far below
// std::sort's n log n when little changed. Past a budget of moves (a teleported crowd, a scene
// turned over) it hands over to std::sort, so a call never costs quadratic time. `less` must
// be a strict total order: then the result is the one sorted order, whichever sort made it.
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>

namespace impetus {

/// Sorts [first, last) by `less`, by insertion while it has made at most
/// moves_per_element · n + 64 moves, else by std::sort.
template <class It, class Less>
void sort_nearly_sorted(It first, It last, Less less, std::size_t moves_per_element) {
  const std::size_t n = static_cast<std::size_t>(std::distance(first, last));
  const std::size_t budget = moves_per_element * n + 64;
  std::size_t moves = 0;
  for (std::size_t p = 1; p < n && moves <= budget; ++p) {
    if (!less(first[p], first[p - 1])) continue;
    auto moving = std::move(first[p]);
    std::size_t q = p;
    for (; q > 0 && less(moving, first[q - 1]); --q, ++moves) first[q] = std::move(first[q - 1]);
    first[q] = std::move(moving);
  }
  if (moves > budget) std::sort(first, last, less);
}

}  // namespace impetus
