// The one file that includes Bullet: btDbvtBroadphase holds the proxies; we copy its pairs out,
// re-check them against our own boxes (Bullet removes stale pairs lazily, a fraction per call)
// and sort them, since the hashed pair cache's order depends on insertion history.
#include "collision/broadphase.h"

#include <algorithm>

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>

#include "collision/base/assert.h"

namespace impetus {

namespace {
constexpr int kDynamicGroup = 1;
constexpr int kStaticGroup = 2;

btVector3 to_bt(const Vec3& v) { return btVector3(v.x(), v.y(), v.z()); }
}  // namespace

struct Broadphase::Impl {
  btDbvtBroadphase tree;
  std::vector<btBroadphaseProxy*> proxies;  // by user index; nullptr = absent
  std::vector<Aabb> boxes;
  std::vector<char> is_static;
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

void Broadphase::compute_pairs(std::vector<std::pair<int, int>>& out) {
  out.clear();
  impl_->tree.calculateOverlappingPairs(nullptr);
  btOverlappingPairCache* cache = impl_->tree.getOverlappingPairCache();
  const int n = cache->getNumOverlappingPairs();
  btBroadphasePair* pairs = n > 0 ? cache->getOverlappingPairArrayPtr() : nullptr;
  out.reserve(n);
  for (int i = 0; i < n; ++i) {
    int a = static_cast<int>(reinterpret_cast<std::intptr_t>(pairs[i].m_pProxy0->m_clientObject));
    int b = static_cast<int>(reinterpret_cast<std::intptr_t>(pairs[i].m_pProxy1->m_clientObject));
    if (a > b) std::swap(a, b);
    if (impl_->is_static[a] && impl_->is_static[b]) continue;
    if (!impl_->boxes[a].overlaps(impl_->boxes[b])) continue;  // stale pair
    out.emplace_back(a, b);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

}  // namespace impetus
