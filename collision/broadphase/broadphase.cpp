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

// One box of a band, in sweep order: its extent along the sweep axis is in band_min / band_max;
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
  // Bands along a second axis, each with its boxes in sweep order (band-major).
  int band_axis = 1, third_axis = 2, band_count = 1;
  double band_origin = 0, band_scale = 1;  // band of v: floor((v − origin) · scale)
  std::vector<int> band_start;  // band_count + 1 offsets into the arrays below
  std::vector<double> band_min, band_max;
  std::vector<SweepBox> band_boxes;
  std::vector<std::array<int, 2>> box_bands;  // fill_bands scratch, by sweep position
  std::vector<std::vector<std::pair<int, int>>> thread_pairs;  // one list per thread
  std::vector<int> bucket_start;              // pairs by first index (counting sort)
  std::vector<std::pair<int, int>> unsorted;  // all threads' pairs, before sorting
  int live = 0;                         // proxies present
  std::vector<int> all_pairs_boxes;     // compute_pairs' small-scene path: the boxes it tests

  void sync_tree();
  void order_for_sweep();
  void fill_bands();
  int band_of(double v) const {
    const double at = std::floor((v - band_origin) * band_scale);
    return at <= 0 ? 0 : at >= band_count - 1 ? band_count - 1 : static_cast<int>(at);
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
  // along it); bands cut the next most spread axis.
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
  // strict weak order std::sort needs; fill_bands leaves such a box out.
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

void Broadphase::Impl::fill_bands() {
  // Bands about four dynamic boxes wide along band_axis (at most kMaxBands), over the range
  // of the dynamic boxes; boxes beyond it (a wide ground) fall into the end bands. A box is
  // copied into every band it spans, in sweep order, so each band is a sweep of its own.
  constexpr int kMaxBands = 64;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, extent = 0;
  int dynamic = 0;
  for (int i : sweep_order) {
    const Aabb& b = boxes[i];
    if (is_static[i] || !finite_bounds(b)) continue;
    lo = std::min(lo, b.min[band_axis]);
    hi = std::max(hi, b.max[band_axis]);
    extent += b.max[band_axis] - b.min[band_axis];
    ++dynamic;
  }
  band_count = 1;
  band_origin = 0;
  band_scale = 1;
  if (dynamic > 0 && hi > lo) {
    const double width = std::max(4.0 * extent / dynamic, (hi - lo) / kMaxBands);
    if (width > 0 && std::isfinite(width)) {
      band_origin = lo;
      band_scale = 1.0 / width;
      band_count = std::clamp(static_cast<int>(std::ceil((hi - lo) / width)), 1, kMaxBands);
    }
  }
  band_start.assign(band_count + 1, 0);
  // Each box's first and last band, by sweep position (−1: a box with a NaN bound, left out).
  box_bands.resize(sweep_order.size());
  for (size_t p = 0; p < sweep_order.size(); ++p) {
    const Aabb& b = boxes[sweep_order[p]];
    if (!finite_bounds(b)) {
      box_bands[p] = {-1, -2};
      continue;
    }
    box_bands[p] = {band_of(b.min[band_axis]), band_of(b.max[band_axis])};
    for (int k = box_bands[p][0]; k <= box_bands[p][1]; ++k) ++band_start[k + 1];
  }
  for (int k = 0; k < band_count; ++k) band_start[k + 1] += band_start[k];
  const size_t total = static_cast<size_t>(band_start[band_count]);
  band_min.resize(total);
  band_max.resize(total);
  band_boxes.resize(total);
  // bucket_start doubles as the fill cursor (compute_pairs reassigns it afterwards).
  bucket_start.assign(band_start.begin(), band_start.end() - 1);
  for (size_t p = 0; p < sweep_order.size(); ++p) {
    const int i = sweep_order[p];
    const Aabb& b = boxes[i];
    const SweepBox entry{{b.min[band_axis], b.min[third_axis]}, {b.max[band_axis], b.max[third_axis]}, i,
                         is_static[i]};
    for (int k = box_bands[p][0]; k <= box_bands[p][1]; ++k) {
      const int at = bucket_start[k]++;
      band_min[at] = b.min[sweep_axis];
      band_max[at] = b.max[sweep_axis];
      band_boxes[at] = entry;
    }
  }
}

// Up to this many boxes, compute_pairs tests all pairs (see there).
constexpr int kAllPairsMaxBoxes = 16;

void Broadphase::compute_pairs(std::vector<std::pair<int, int>>& out, int threads) {
  Impl& w = *impl_;
  // A few boxes are tested all against all: the sweep's bookkeeping (choosing axes, keeping
  // the order, filling bands, sorting the pairs) cost more than that: newton_cradle's step
  // (5 balls) takes 2.2% fewer instructions, stack_boxes_10's 1.2%. capsule_chain_50's 51
  // links took 2.7% more all against all. The same pairs come out, already in (a, b) order.
  if (w.live <= kAllPairsMaxBoxes) {
    // Live boxes with finite bounds (fill_bands leaves the others out too), by index.
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
  w.fill_bands();
  // In each band, each box meets the boxes after it in sweep order that start before it ends;
  // those that also overlap on the other two axes are pairs. A pair spanning several bands is
  // reported by the one band holding the start of their overlap along the band axis. Threads
  // take bands and collect pairs in lists of their own; the sort below makes the result
  // independent of who found what.
  const int bands = w.band_count;
  const int t = bands == 1 || w.sweep_order.size() < 256 ? 1 : usable_threads(threads);
  if (static_cast<int>(w.thread_pairs.size()) < t) w.thread_pairs.resize(t);
  auto sweep_band = [&](int band, std::vector<std::pair<int, int>>& found) {
    const int end = w.band_start[band + 1];
    for (int p = w.band_start[band]; p < end; ++p) {
      const SweepBox& a = w.band_boxes[p];
      const double a_min = w.band_min[p], a_max = w.band_max[p];
      for (int q = p + 1; q < end && w.band_min[q] <= a_max; ++q) {
        const SweepBox& b = w.band_boxes[q];
        const bool overlap = (a_min <= w.band_max[q]) & (a.lo[0] <= b.hi[0]) & (b.lo[0] <= a.hi[0]) &
                             (a.lo[1] <= b.hi[1]) & (b.lo[1] <= a.hi[1]) & !(a.is_static & b.is_static);
        if (overlap && w.band_of(std::max(a.lo[0], b.lo[0])) == band)
          found.emplace_back(std::min(a.index, b.index), std::max(a.index, b.index));
      }
    }
  };
  if (t == 1) {
    // No parallel region at all: entering one costs microseconds, a small scene's whole sweep.
    w.thread_pairs[0].clear();
    for (int band = 0; band < bands; ++band) sweep_band(band, w.thread_pairs[0]);
  } else {
#pragma omp parallel num_threads(t)
    {
      std::vector<std::pair<int, int>>& mine = w.thread_pairs[omp_get_thread_num()];
      mine.clear();
#pragma omp for schedule(dynamic, 1)
      for (int band = 0; band < bands; ++band) sweep_band(band, mine);
    }
  }
  std::vector<std::pair<int, int>>& unsorted = w.unsorted;
  unsorted.clear();
  for (int k = 0; k < t; ++k) unsorted.insert(unsorted.end(), w.thread_pairs[k].begin(), w.thread_pairs[k].end());
  // Sorted by (a, b): a counting sort by a (linear in pairs and proxies), then each a's few b's
  // in place.
  std::vector<int>& start = w.bucket_start;
  start.assign(w.proxies.size() + 1, 0);
  for (const auto& pair : unsorted) ++start[pair.first + 1];
  for (size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
  out.resize(unsorted.size());
  for (const auto& pair : unsorted) out[start[pair.first]++] = pair;
  // start[a] now ends bucket a; bucket a begins where bucket a − 1 ended.
  size_t begin = 0;
  for (size_t a = 0; a + 1 < start.size(); ++a) {
    const size_t end = static_cast<size_t>(start[a]);
    if (end - begin > 1) std::sort(out.begin() + begin, out.begin() + end);
    begin = end;
  }
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
