// The one file that includes Bullet: btDbvtBroadphase holds the proxies; we copy its pairs out,
// re-check them against our own boxes (Bullet removes stale pairs lazily, a fraction per call)
// and sort them, since the hashed pair cache's order depends on insertion history. Queries walk
// the two trees directly and are sorted the same way.
#include "collision/broadphase/broadphase.h"

#include <algorithm>
#include <cstdint>

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>

#include "collision/base/assert.h"

namespace impetus {

namespace {
constexpr int kDynamicGroup = 1;
constexpr int kStaticGroup = 2;

btVector3 to_bt(const Vec3& v) { return btVector3(v.x(), v.y(), v.z()); }

// Collects the user indices of the leaves a tree query visits.
struct LeafCollector : btDbvt::ICollide {
  std::vector<int>* out = nullptr;
  void Process(const btDbvtNode* leaf) override {
    const btBroadphaseProxy* proxy = static_cast<const btBroadphaseProxy*>(leaf->data);
    out->push_back(static_cast<int>(reinterpret_cast<std::intptr_t>(proxy->m_clientObject)));
  }
};
}  // namespace

struct Broadphase::Impl {
  btDbvtBroadphase tree;
  std::vector<btBroadphaseProxy*> proxies;  // by user index; nullptr = absent
  std::vector<Aabb> boxes;
  std::vector<char> is_static;
  std::vector<int> bucket_start;              // compute_pairs: pairs by first index (counting sort)
  std::vector<std::pair<int, int>> unsorted;  // compute_pairs: Bullet's pairs, checked
};

Broadphase::Broadphase() : impl_(std::make_unique<Impl>()) {}
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
}

void Broadphase::update(int index, const Aabb& box) {
  IMPETUS_ASSERT(impl_->proxies[index] != nullptr, "update of an absent proxy");
  impl_->tree.setAabb(impl_->proxies[index], to_bt(box.min), to_bt(box.max), nullptr);
  impl_->boxes[index] = box;
}

void Broadphase::remove(int index) {
  IMPETUS_ASSERT(impl_->proxies[index] != nullptr, "removal of an absent proxy");
  impl_->tree.destroyProxy(impl_->proxies[index], nullptr);
  impl_->proxies[index] = nullptr;
}

const Aabb& Broadphase::box(int index) const {
  IMPETUS_ASSERT(impl_->proxies[index] != nullptr, "box of an absent proxy");
  return impl_->boxes[index];
}

void Broadphase::compute_pairs(std::vector<std::pair<int, int>>& out) {
  out.clear();
  impl_->tree.calculateOverlappingPairs(nullptr);
  btOverlappingPairCache* cache = impl_->tree.getOverlappingPairCache();
  const int n = cache->getNumOverlappingPairs();
  btBroadphasePair* pairs = n > 0 ? cache->getOverlappingPairArrayPtr() : nullptr;
  std::vector<std::pair<int, int>>& unsorted = impl_->unsorted;
  unsorted.clear();
  for (int i = 0; i < n; ++i) {
    int a = static_cast<int>(reinterpret_cast<std::intptr_t>(pairs[i].m_pProxy0->m_clientObject));
    int b = static_cast<int>(reinterpret_cast<std::intptr_t>(pairs[i].m_pProxy1->m_clientObject));
    if (a > b) std::swap(a, b);
    if (impl_->is_static[a] && impl_->is_static[b]) continue;
    if (!impl_->boxes[a].overlaps(impl_->boxes[b])) continue;  // stale pair
    unsorted.emplace_back(a, b);
  }
  // Sorted by (a, b), duplicates dropped: a counting sort by a (linear in pairs and proxies;
  // std::sort's n log n was a serial 1-2% of a pile's step), then each a's few b's in place.
  std::vector<int>& start = impl_->bucket_start;
  start.assign(impl_->proxies.size() + 1, 0);
  for (const auto& pair : unsorted) ++start[pair.first + 1];
  for (size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
  out.resize(unsorted.size());
  for (const auto& pair : unsorted) out[start[pair.first]++] = pair;
  // start[a] now ends bucket a; bucket a begins where bucket a − 1 ended.
  size_t kept = 0, begin = 0;
  for (size_t a = 0; a + 1 < start.size(); ++a) {
    const size_t end = static_cast<size_t>(start[a]);
    std::sort(out.begin() + begin, out.begin() + end);
    for (size_t i = begin; i < end; ++i) {
      if (kept == 0 || out[kept - 1] != out[i]) out[kept++] = out[i];
    }
    begin = end;
  }
  out.resize(kept);
}

void Broadphase::query_box(const Aabb& box, std::vector<int>& out) const {
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
