// The one file that includes Bullet. Pairs: a sweep and prune over our own boxes, parallel and
// deterministic. Bullet's tree found them before, but serially: its tree updates, pair search
// and hashed pair cache were 14% of pile_spheres_1k's step at 2 threads (perf), all on the
// main thread while the other waited. Bullet's trees now only answer queries: the proxies are
// kept up to date, with no pair cache and no pair search (deferred collision, never run).
// Queries walk the two trees directly and are sorted.
#include "collision/broadphase/broadphase.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <omp.h>

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>

#include "collision/base/assert.h"
#include "collision/base/nearly_sorted.h"
#include "collision/base/parallel.h"

namespace impetus {

namespace {
constexpr int kDynamicGroup = 1;
constexpr int kStaticGroup = 2;

btVector3 to_bt(const Vec3& v) { return btVector3(v.x(), v.y(), v.z()); }

// Boxes with a NaN or infinite bound (a diverging body, before the world stops) pair with
// nothing.
bool finite_bounds(const Aabb& b) { return b.min.allFinite() && b.max.allFinite(); }

// Collects the user indices of the leaves a tree query visits.
struct LeafCollector : btDbvt::ICollide {
  std::vector<int>* out = nullptr;
  void Process(const btDbvtNode* leaf) override {
    const btBroadphaseProxy* proxy = static_cast<const btBroadphaseProxy*>(leaf->data);
    out->push_back(static_cast<int>(reinterpret_cast<std::intptr_t>(proxy->m_clientObject)));
  }
};
}  // namespace

// One box of a cell, in sweep order: its extent along the sweep axis is in cell_min / cell_max;
// lo/hi hold the band axis ([0]) and the third axis ([1]).
struct SweepBox {
  double lo[2];
  double hi[2];
  int index;
  int is_static;
};

struct Broadphase::Impl {
  btNullPairCache no_pairs;  // before the tree, which uses it
  btDbvtBroadphase tree{&no_pairs};
  std::vector<btBroadphaseProxy*> proxies;  // by user index; nullptr = absent
  std::vector<Aabb> boxes;
  std::vector<char> is_static;
  // Boxes given by update() reach Bullet's query trees only when a query needs them: the step
  // moves every awake body, queries are rare.
  std::vector<char> tree_stale;
  std::vector<int> tree_stale_list;
  // Sweep and prune: live indices sorted by their box's lower bound along sweep_axis, kept
  // between calls (boxes move little per step, so an insertion sort restores the order).
  std::vector<int> sweep_order;
  bool sweep_order_stale = true;  // after add or remove
  int sweep_axis = -1;
  // Cells of a grid over the two other axes (rows along band_axis, columns along
  // third_axis), each with its boxes in sweep order (row-major).
  int band_axis = 1, third_axis = 2;
  int grid_count[2] = {1, 1};  // rows, columns
  double grid_origin[2] = {0, 0}, grid_scale[2] = {1, 1};  // cell of v: floor((v − origin) · scale)
  std::vector<int> cell_start;  // cells + 1 offsets into the arrays below
  std::vector<double> cell_min, cell_max;
  std::vector<SweepBox> cell_boxes;
  std::vector<std::array<int, 4>> box_cells;  // first, last row; first, last column; by sweep position
  // Per thread (of the sweep's team of `team`): the entries it puts in each cell (then where
  // they go), and the pairs it found, counted by first index (then where they go).
  int team = 1;
  std::vector<int> cell_cursor;               // team × cells
  // One list per thread, each on cache lines of its own: every pair found writes its list's
  // end pointer, and two lists side by side made the two cores fight over that line.
  struct alignas(64) PairList {
    std::vector<std::pair<int, int>> pairs;
  };
  std::vector<PairList> thread_pairs;
  std::vector<int> pair_cursor;               // team × proxies
  std::vector<int> bucket_start;              // pairs by first index: proxies + 1 offsets
  int live = 0;                         // proxies present
  std::vector<int> all_pairs_boxes;     // compute_pairs' small-scene path: the boxes it tests

  void sync_tree();
  void order_for_sweep();
  void place_cells();
  // Steps of compute_pairs' sweep, run by thread `me` of the team; the thread's share of the
  // boxes is a contiguous range of sweep positions, the same in both cell steps.
  std::pair<size_t, size_t> share(int me) const {
    const size_t n = sweep_order.size();
    return {n * me / team, n * (me + 1) / team};
  }
  void count_cell_entries(int me);
  void cell_offsets();
  void fill_cell_entries(int me);
  void sweep_row(int row, std::vector<std::pair<int, int>>& found) const;
  void count_pairs(int me);
  void pair_offsets(std::vector<std::pair<int, int>>& out);
  void place_pairs(int me, std::vector<std::pair<int, int>>& out);
  void sort_bucket(size_t a, std::vector<std::pair<int, int>>& out) const;
  int cells() const { return grid_count[0] * grid_count[1]; }
  // Row (g = 0) or column (g = 1) of coordinate v along that grid axis.
  int cell_of(int g, double v) const {
    const double at = std::floor((v - grid_origin[g]) * grid_scale[g]);
    return at <= 0 ? 0 : at >= grid_count[g] - 1 ? grid_count[g] - 1 : static_cast<int>(at);
  }
};

Broadphase::Broadphase() : impl_(std::make_unique<Impl>()) {
  // Proxies only feed the query trees: no pair search when a box moves.
  impl_->tree.m_deferedcollide = true;
}
Broadphase::~Broadphase() {
  for (btBroadphaseProxy* proxy : impl_->proxies) {
    if (proxy) impl_->tree.destroyProxy(proxy, nullptr);
  }
}

void Broadphase::add(int index, const Aabb& box, bool is_static) {
  IMPETUS_ASSERT(index >= 0, "proxy index must be non-negative");
  if (static_cast<size_t>(index) >= impl_->proxies.size()) {
    impl_->proxies.resize(index + 1, nullptr);
    impl_->boxes.resize(index + 1);
    impl_->is_static.resize(index + 1, 0);
    impl_->tree_stale.resize(index + 1, 0);
  }
  IMPETUS_ASSERT(impl_->proxies[index] == nullptr, "proxy index already in use");
  const int group = is_static ? kStaticGroup : kDynamicGroup;
  // Static proxies only look for dynamic ones; dynamic ones look for everything.
  const int mask = is_static ? kDynamicGroup : (kDynamicGroup | kStaticGroup);
  // Bullet stores the user pointer; we store the index in it (never dereferenced).
  void* user = reinterpret_cast<void*>(static_cast<std::intptr_t>(index));
  impl_->proxies[index] = impl_->tree.createProxy(to_bt(box.min), to_bt(box.max), 0, user, group,
                                                   mask, nullptr);
  impl_->boxes[index] = box;
  impl_->is_static[index] = is_static ? 1 : 0;
  impl_->sweep_order_stale = true;
  ++impl_->live;
}

void Broadphase::update(int index, const Aabb& box) {
  IMPETUS_ASSERT(impl_->proxies[index] != nullptr, "update of an absent proxy");
  impl_->boxes[index] = box;
  if (!impl_->tree_stale[index]) {
    impl_->tree_stale[index] = 1;
    impl_->tree_stale_list.push_back(index);
  }
}

void Broadphase::Impl::sync_tree() {
  for (int i : tree_stale_list) {
    tree_stale[i] = 0;
    if (proxies[i]) tree.setAabb(proxies[i], to_bt(boxes[i].min), to_bt(boxes[i].max), nullptr);
  }
  tree_stale_list.clear();
}

void Broadphase::remove(int index) {
  IMPETUS_ASSERT(impl_->proxies[index] != nullptr, "removal of an absent proxy");
  impl_->tree.destroyProxy(impl_->proxies[index], nullptr);
  impl_->proxies[index] = nullptr;
  impl_->sweep_order_stale = true;
  --impl_->live;
}

const Aabb& Broadphase::box(int index) const {
  IMPETUS_ASSERT(impl_->proxies[index] != nullptr, "box of an absent proxy");
  return impl_->boxes[index];
}

void Broadphase::Impl::order_for_sweep() {
  // Sweep along the axis where the dynamic boxes' centres spread most (fewest boxes overlap
  // along it); rows of cells cut the next most spread axis.
  Vec3 mean = Vec3::Zero(), square = Vec3::Zero();
  int count = 0;
  for (size_t i = 0; i < proxies.size(); ++i) {
    if (!proxies[i] || is_static[i]) continue;
    const Vec3 c = boxes[i].center();
    if (!c.allFinite()) continue;
    mean += c;
    square += c.cwiseProduct(c);
    ++count;
  }
  Vec3 spread = Vec3::Zero();
  if (count > 0) spread = square / count - (mean / count).cwiseProduct(mean / count);
  int axis = 0;
  spread.maxCoeff(&axis);
  // Keep the axis unless another spreads clearly more: switching costs a full sort.
  if (sweep_axis >= 0 && axis != sweep_axis && spread[axis] < 1.5 * spread[sweep_axis]) axis = sweep_axis;
  // A NaN bound (a diverged body, before the world stops) sorts last instead of breaking the
  // strict weak order std::sort needs; count_cell_entries leaves such a box out.
  auto key = [&](int i) {
    const double k = boxes[i].min[axis];
    return std::isnan(k) ? std::numeric_limits<double>::infinity() : k;
  };
  auto key_less = [&](int a, int b) {
    const double ka = key(a), kb = key(b);
    return ka != kb ? ka < kb : a < b;
  };
  if (sweep_order_stale || axis != sweep_axis) {
    sweep_order.clear();
    for (size_t i = 0; i < proxies.size(); ++i)
      if (proxies[i]) sweep_order.push_back(static_cast<int>(i));
    std::sort(sweep_order.begin(), sweep_order.end(), key_less);
    sweep_order_stale = false;
    sweep_axis = axis;
  } else {
    // Boxes move little per step: last call's order is nearly right (key_less is total).
    sort_nearly_sorted(sweep_order.begin(), sweep_order.end(), key_less, 8);
  }
  const int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2;
  band_axis = spread[a1] >= spread[a2] ? a1 : a2;
  third_axis = band_axis == a1 ? a2 : a1;
}

void Broadphase::Impl::place_cells() {
  // Cells about kCellWidth dynamic boxes wide along each grid axis (at most kMaxCells per
  // axis; bands of one column in small scenes), over the range of the dynamic boxes; boxes
  // beyond it (a wide ground) fall into the edge cells. A box is copied into every cell it
  // spans, in sweep order, so each cell is a sweep of its own.
  constexpr double kCellWidth = 3.0, kBandWidth = 4.0;
  constexpr int kMaxCells = 32, kMaxBands = 64;  // per axis
  constexpr int kBoxesPerCell = 4;
  constexpr int kMinGridBoxes = 256;
  const int axes[2] = {band_axis, third_axis};
  double lo[2], hi[2], extent[2] = {0, 0};
  for (int g = 0; g < 2; ++g) lo[g] = std::numeric_limits<double>::infinity(), hi[g] = -lo[g];
  int dynamic = 0;
  for (int i : sweep_order) {
    const Aabb& b = boxes[i];
    if (is_static[i] || !finite_bounds(b)) continue;
    for (int g = 0; g < 2; ++g) {
      lo[g] = std::min(lo[g], b.min[axes[g]]);
      hi[g] = std::max(hi[g], b.max[axes[g]]);
      extent[g] += b.max[axes[g]] - b.min[axes[g]];
    }
    ++dynamic;
  }
  // Below kMinGridBoxes, bands (one column) about four boxes wide cost least: a grid's binning
  // (capsule_chain_50: 1.1% more instructions) outweighed its shorter sweeps there. A grid's
  // cells cost bookkeeping of their own: at most one per kBoxesPerCell dynamic boxes.
  const bool grid = dynamic >= kMinGridBoxes;
  const int most_per_axis = grid ? kMaxCells : kMaxBands;
  const int most_cells = grid ? std::max(1, dynamic / kBoxesPerCell) : kMaxBands;
  double width[2];
  for (int g = 0; g < 2; ++g) {
    const double boxes_wide = grid ? kCellWidth : g == 0 ? kBandWidth : 0.0;
    width[g] = dynamic > 0 && boxes_wide > 0
                   ? std::max(boxes_wide * extent[g] / dynamic, (hi[g] - lo[g]) / most_per_axis)
                   : 0.0;
  }
  for (;;) {
    for (int g = 0; g < 2; ++g) {
      grid_count[g] = 1;
      grid_origin[g] = 0;
      grid_scale[g] = 1;
      if (dynamic == 0 || !(hi[g] > lo[g]) || !(width[g] > 0) || !std::isfinite(width[g])) continue;
      grid_origin[g] = lo[g];
      grid_scale[g] = 1.0 / width[g];
      grid_count[g] = std::clamp(static_cast<int>(std::ceil((hi[g] - lo[g]) / width[g])), 1, most_per_axis);
    }
    if (cells() <= most_cells) break;
    for (double& w : width) w *= 1.25;
  }
  box_cells.resize(sweep_order.size());
  cell_cursor.assign(static_cast<size_t>(team) * cells(), 0);
}

void Broadphase::Impl::count_cell_entries(int me) {
  // Each box's rows and columns, by sweep position (none: a box with a NaN bound, left out).
  int* count = &cell_cursor[static_cast<size_t>(me) * cells()];
  const int columns = grid_count[1];
  const auto [begin, end] = share(me);
  for (size_t p = begin; p < end; ++p) {
    const Aabb& b = boxes[sweep_order[p]];
    std::array<int, 4>& c = box_cells[p];
    if (!finite_bounds(b)) {
      c = {0, -1, 0, -1};
      continue;
    }
    c = {cell_of(0, b.min[band_axis]), cell_of(0, b.max[band_axis]), 0, 0};
    if (columns == 1) {  // bands
      for (int row = c[0]; row <= c[1]; ++row) ++count[row];
      continue;
    }
    c[2] = cell_of(1, b.min[third_axis]);
    c[3] = cell_of(1, b.max[third_axis]);
    for (int row = c[0]; row <= c[1]; ++row)
      for (int column = c[2]; column <= c[3]; ++column) ++count[row * columns + column];
  }
}

void Broadphase::Impl::cell_offsets() {
  // Cell k holds thread 0's entries for it, then thread 1's, ...: in sweep order, as the
  // threads' shares are consecutive ranges of it.
  const int n = cells();
  cell_start.assign(n + 1, 0);
  int at = 0;
  for (int k = 0; k < n; ++k) {
    cell_start[k] = at;
    for (int j = 0; j < team; ++j) {
      int& cursor = cell_cursor[static_cast<size_t>(j) * n + k];  // count → offset
      std::swap(at, cursor);
      at += cursor;
    }
  }
  cell_start[n] = at;
  cell_min.resize(at);
  cell_max.resize(at);
  cell_boxes.resize(at);
}

void Broadphase::Impl::fill_cell_entries(int me) {
  int* cursor = &cell_cursor[static_cast<size_t>(me) * cells()];
  const int columns = grid_count[1];
  const auto [begin, end] = share(me);
  for (size_t p = begin; p < end; ++p) {
    const int i = sweep_order[p];
    const Aabb& b = boxes[i];
    const SweepBox entry{{b.min[band_axis], b.min[third_axis]}, {b.max[band_axis], b.max[third_axis]}, i,
                         is_static[i]};
    const std::array<int, 4>& c = box_cells[p];
    for (int row = c[0]; row <= c[1]; ++row) {
      for (int column = c[2]; column <= c[3]; ++column) {
        const int at = cursor[row * columns + column]++;
        cell_min[at] = b.min[sweep_axis];
        cell_max[at] = b.max[sweep_axis];
        cell_boxes[at] = entry;
      }
    }
  }
}

void Broadphase::Impl::sweep_row(int row, std::vector<std::pair<int, int>>& found) const {
  // In each cell, each box meets the boxes after it in sweep order that start before it ends;
  // those that also overlap on the other two axes are pairs. A pair spanning several cells is
  // reported by the one cell holding the lower corner of their overlap (both boxes span it).
  const int columns = grid_count[1];
  for (int column = 0; column < columns; ++column) {
    const int cell = row * columns + column;
    const int end = cell_start[cell + 1];
    for (int p = cell_start[cell]; p < end; ++p) {
      const SweepBox& a = cell_boxes[p];
      const double a_min = cell_min[p], a_max = cell_max[p];
      for (int q = p + 1; q < end && cell_min[q] <= a_max; ++q) {
        const SweepBox& b = cell_boxes[q];
        const bool overlap = (a_min <= cell_max[q]) & (a.lo[0] <= b.hi[0]) & (b.lo[0] <= a.hi[0]) &
                             (a.lo[1] <= b.hi[1]) & (b.lo[1] <= a.hi[1]) & !(a.is_static & b.is_static);
        if (overlap && cell_of(0, std::max(a.lo[0], b.lo[0])) == row &&
            (columns == 1 || cell_of(1, std::max(a.lo[1], b.lo[1])) == column))
          found.emplace_back(std::min(a.index, b.index), std::max(a.index, b.index));
      }
    }
  }
}

// The pairs come out sorted by (a, b) whoever found them: a counting sort by a (linear in
// pairs and proxies), each thread placing its own pairs, then each a's few b's in place.
void Broadphase::Impl::count_pairs(int me) {
  int* count = &pair_cursor[static_cast<size_t>(me) * proxies.size()];
  std::fill(count, count + proxies.size(), 0);
  for (const auto& pair : thread_pairs[me].pairs) ++count[pair.first];
}

void Broadphase::Impl::pair_offsets(std::vector<std::pair<int, int>>& out) {
  const size_t n = proxies.size();
  bucket_start.resize(n + 1);
  int at = 0;
  for (size_t a = 0; a < n; ++a) {
    bucket_start[a] = at;
    for (int j = 0; j < team; ++j) {
      int& cursor = pair_cursor[j * n + a];  // count → offset
      std::swap(at, cursor);
      at += cursor;
    }
  }
  bucket_start[n] = at;
  out.resize(at);
}

void Broadphase::Impl::place_pairs(int me, std::vector<std::pair<int, int>>& out) {
  int* cursor = &pair_cursor[static_cast<size_t>(me) * proxies.size()];
  for (const auto& pair : thread_pairs[me].pairs) out[cursor[pair.first]++] = pair;
}

void Broadphase::Impl::sort_bucket(size_t a, std::vector<std::pair<int, int>>& out) const {
  const int begin = bucket_start[a], end = bucket_start[a + 1];
  if (end - begin > 1) std::sort(out.begin() + begin, out.begin() + end);
}

// Up to this many boxes, compute_pairs tests all pairs (see there).
constexpr int kAllPairsMaxBoxes = 16;

void Broadphase::compute_pairs(std::vector<std::pair<int, int>>& out, int threads) {
  Impl& w = *impl_;
  // A few boxes are tested all against all: the sweep's bookkeeping (choosing axes, keeping
  // the order, filling cells, sorting the pairs) cost more than that: newton_cradle's step
  // (5 balls) takes 2.2% fewer instructions, stack_boxes_10's 1.2%. capsule_chain_50's 51
  // links took 2.7% more all against all. The same pairs come out, already in (a, b) order.
  if (w.live <= kAllPairsMaxBoxes) {
    // Live boxes with finite bounds (the sweep leaves the others out too), by index.
    std::vector<int>& boxes = w.all_pairs_boxes;
    boxes.clear();
    for (int i = 0; i < static_cast<int>(w.proxies.size()) && static_cast<int>(boxes.size()) < w.live; ++i)
      if (w.proxies[i] && finite_bounds(w.boxes[i])) boxes.push_back(i);
    out.clear();
    for (std::size_t p = 0; p < boxes.size(); ++p) {
      const int a = boxes[p];
      for (std::size_t q = p + 1; q < boxes.size(); ++q) {
        const int b = boxes[q];
        if (!(w.is_static[a] && w.is_static[b]) && w.boxes[a].overlaps(w.boxes[b])) out.emplace_back(a, b);
      }
    }
    return;  // (the scene grows back only through add(), which makes the sweep sort afresh)
  }
  w.order_for_sweep();
  // One parallel region for the cells' filling, the sweep and the sort of the pairs (entering
  // a region costs microseconds); every thread count gives the same cells, the same pairs and
  // the same order. The filling and the sort were serial parts of pile_spheres_1k's step at 2
  // threads: 0.035 and 0.042 ms, against 0.14 ms for the parallel sweep.
  const int t = w.sweep_order.size() < 256 ? 1 : usable_threads(threads);
  run_team(t, [&](auto& team) {
    // Per-thread storage for the team granted (the runtime may grant fewer than asked for).
    team.single([&] {
      w.team = team.size();
      if (static_cast<int>(w.thread_pairs.size()) < w.team) w.thread_pairs.resize(w.team);
      w.pair_cursor.resize(static_cast<size_t>(w.team) * w.proxies.size());
      w.place_cells();
    });
    const int me = team.thread();
    w.count_cell_entries(me);
    team.barrier();
    team.single([&] { w.cell_offsets(); });
    w.fill_cell_entries(me);
    std::vector<std::pair<int, int>>& mine = w.thread_pairs[me].pairs;
    mine.clear();
    team.barrier();
    team.for_dynamic(w.grid_count[0], [&](std::ptrdiff_t row) { w.sweep_row(static_cast<int>(row), mine); });
    w.count_pairs(me);
    team.barrier();
    team.single([&] { w.pair_offsets(out); });
    w.place_pairs(me, out);
    team.barrier();
    team.for_static(0, static_cast<std::ptrdiff_t>(w.proxies.size()), [&](std::ptrdiff_t a) { w.sort_bucket(a, out); });
  });
}

void Broadphase::query_box(const Aabb& box, std::vector<int>& out) const {
  impl_->sync_tree();
  out.clear();
  LeafCollector collect;
  collect.out = &out;
  const btDbvtVolume volume = btDbvtVolume::FromMM(to_bt(box.min), to_bt(box.max));
  // Bullet keeps proxies in two trees (recently moved, and settled); ask both.
  for (const btDbvt& set : impl_->tree.m_sets) set.collideTV(set.m_root, volume, collect);
  // The trees' leaves may be fattened boxes: keep what our own boxes say.
  std::erase_if(out, [&](int i) { return !impl_->boxes[i].overlaps(box); });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

void Broadphase::query_segment(const Vec3& from, const Vec3& to, double slack,
                               std::vector<int>& out) const {
  impl_->sync_tree();
  out.clear();
  const Vec3 delta = to - from;
  const double length = delta.norm();
  IMPETUS_ASSERT(length > 0, "segment query needs two distinct points");
  // Bullet's slab test works in distance units along the unit direction; a zero component gets
  // a huge inverse, as btDbvt::rayTest does.
  const Vec3 dir = delta / length;
  btVector3 inverse;
  unsigned signs[3];
  for (int k = 0; k < 3; ++k) {
    inverse[k] = dir[k] == 0 ? btScalar(BT_LARGE_FLOAT) : 1.0 / dir[k];
    signs[k] = inverse[k] < 0 ? 1 : 0;
  }
  LeafCollector collect;
  collect.out = &out;
  btAlignedObjectArray<const btDbvtNode*> stack;
  const btVector3 grow(slack, slack, slack);
  for (const btDbvt& set : impl_->tree.m_sets) {
    set.rayTestInternal(set.m_root, to_bt(from), to_bt(to), inverse, signs, length, -grow, grow,
                        stack, collect);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

}  // namespace impetus
