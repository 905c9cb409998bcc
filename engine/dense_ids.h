#pragma once
// Generational ids for objects the World keeps in a dense array in creation order (joints,
// cloths): the step loops over that array with no gaps to skip, and an id finds its object
// through its slot. Removal keeps the order of the others (they move down one place), so the
// solver meets the remaining joints in the same order as before: destroy is O(n), the step
// pays nothing. Bodies do not use this: they stay in their slot (world_impl.h).
#include <cstdint>
#include <utility>
#include <vector>

namespace impetus {

class DenseIds {
 public:
  /// The slot index and generation for an object about to be appended at position size():
  /// the most recently freed slot with its next generation, else a new slot (generation 1).
  std::pair<std::uint32_t, std::uint32_t> add() {
    std::uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(generation_.size());
      generation_.push_back(1);
      position_.push_back(-1);
    }
    position_[slot] = static_cast<int>(slot_of_.size());
    slot_of_.push_back(slot);
    return {slot, generation_[slot]};
  }

  /// Dense position of the live object (index, generation), or −1.
  int find(std::uint32_t index, std::uint32_t generation) const {
    if (generation == 0 || index >= generation_.size() || generation_[index] != generation) return -1;
    return position_[index];
  }

  /// Frees the slot of the object at dense position `position` (its generation moves on, so its
  /// id goes stale); the objects after it move down one position, as the caller's array must.
  void remove(int position) {
    const std::uint32_t slot = slot_of_[position];
    position_[slot] = -1;
    if (++generation_[slot] == 0) generation_[slot] = 1;  // 0 is the null id
    free_.push_back(slot);
    slot_of_.erase(slot_of_.begin() + position);
    for (std::size_t k = static_cast<std::size_t>(position); k < slot_of_.size(); ++k)
      position_[slot_of_[k]] = static_cast<int>(k);
  }

  /// Slot index and generation of the object at dense position `position`.
  std::pair<std::uint32_t, std::uint32_t> id_at(int position) const {
    const std::uint32_t slot = slot_of_[position];
    return {slot, generation_[slot]};
  }

  std::size_t size() const { return slot_of_.size(); }
  std::size_t slot_count() const { return generation_.size(); }

 private:
  std::vector<std::uint32_t> generation_;  // per slot: the live object's, or the next one's
  std::vector<int> position_;              // per slot: dense position, −1 when free
  std::vector<std::uint32_t> slot_of_;     // per dense position: its slot
  std::vector<std::uint32_t> free_;        // free slots, the most recently freed last
};

}  // namespace impetus
