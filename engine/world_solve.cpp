// Contact constraints from manifolds, warm starting, and the solver phase of the step.
#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/base/parallel.h"
#include "dynamics/constraint_rows.h"
#include "dynamics/contact_prefetch.h"
#include "engine/world_impl.h"

namespace impetus {

namespace {

// Small islands holding fewer blocks than this in all are solved on one thread: a parallel
// region (about 5 µs on the 2-core VM) would cost more than they do.
constexpr std::size_t kMinParallelIslandBlocks = 64;
// A small island of this many blocks, with at least kLeadIslandShare times the blocks of all
// the other small islands together, runs alone with every thread (for_small_islands).
constexpr std::size_t kMinLeadIslandBlocks = 256;
constexpr std::size_t kLeadIslandShare = 4;

// Islands this big are swept in parallel on their own (nested dissection, block_solver.h).
bool is_big_island(const Island& island, const BlockSolverSettings& settings) {
  return static_cast<int>(island.contacts.size() + island.joints.size()) >= settings.parallel_min_blocks;
}

}  // namespace

double World::Impl::contact_slop(int a, int b) const {
  const double solver_slop = def.solver == SolverType::SequentialImpulse ? solver_settings.linear_slop
                                                                         : block_settings.linear_slop;
  // Static geometry's size does not matter (a thin floor slab is no small body).
  double size = std::numeric_limits<double>::infinity();
  if (bodies[a].dynamic) size = std::min(size, smallest_sizes[a]);
  if (bodies[b].dynamic) size = std::min(size, smallest_sizes[b]);
  return std::min(solver_slop, kSlopSizeFraction * size);
}

static_assert(kMaxManifoldPoints <= kMaxWarmStartPoints, "warm_start_pair takes a whole manifold");

void World::Impl::build_contacts() {
  // Each pair's points go to consecutive slots from its offset, in pair order whatever the
  // thread count.
  contact_offsets.resize(pairs.size() + 1);
  contact_offsets[0] = 0;
  for (size_t k = 0; k < pairs.size(); ++k) {
    // A sensor's manifold only feeds its events (world_events.cpp): no response.
    const bool responds = !pair_has_sensor(pairs[k].first, pairs[k].second);
    contact_offsets[k + 1] = contact_offsets[k] + (responds ? manifolds[k].count : 0);
  }
  contacts.resize(contact_offsets[pairs.size()]);
  const CachedImpulse* cache_begin = warm_cache.data();
  const CachedImpulse* cache_end = cache_begin + warm_cache.size();
  // Pairs come in pair order, and so do the cache's records (a key leads with its pair): the
  // records of each part's pairs are found by one search for its first pair and then by walking
  // on from the last pair's records. A binary search per pair read the 42,000 records of the
  // 10,000-box pile all over memory (a third of this loop's time there); the walk reads them in
  // order. It finds the same record: the first whose key is not below the pair's.
  const auto pair_count = static_cast<std::ptrdiff_t>(pairs.size());
  parallel_for_ranges(pair_count, def.threads, [&](std::ptrdiff_t first, std::ptrdiff_t last) {
    const CachedImpulse* cursor = nullptr;
    for (std::ptrdiff_t k = first; k < last; ++k) build_pair_contacts(k, cache_begin, cache_end, cursor);
  });
}

void World::Impl::build_pair_contacts(std::ptrdiff_t k, const CachedImpulse* cache_begin,
                                      const CachedImpulse* cache_end, const CachedImpulse*& cursor) {
  const int count = contact_offsets[k + 1] - contact_offsets[k];
  if (count == 0) return;
  const Manifold& m = manifolds[k];
  const int a = pairs[k].first, b = pairs[k].second;
  const MaterialDef& ma = def.materials[materials[a]];
  const MaterialDef& mb = def.materials[materials[b]];
  // scene-format.md: friction is the geometric mean, restitution the maximum.
  const double friction = std::sqrt(ma.friction * mb.friction);
  const double restitution = std::max(ma.restitution, mb.restitution);
  const double slop = contact_slop(a, b);
  // A pair's keys share their leading bits (contact_key): one search or walk finds where the
  // pair's records start (a search per point was 3% of pile_boxes_1k's step, four per box pair).
  CachedImpulse pair_probe;
  pair_probe.key = contact_key(a, b, 0);
  // The walk needs every record before the cursor below the pair's key; when the one just
  // before is not (pairs out of order), a search finds the record as before.
  if (cursor == nullptr || (cursor != cache_begin && !(cursor[-1] < pair_probe))) {
    cursor = std::lower_bound(cache_begin, cache_end, pair_probe);
  } else {
    while (cursor != cache_end && *cursor < pair_probe) ++cursor;
  }
  const CachedImpulse* pair_first = cursor;
  const CachedImpulse* pair_end = pair_first;
  while (pair_end != cache_end && contact_key_same_pair(pair_end->key, pair_probe.key)) ++pair_end;
  cursor = pair_end;
  ContactConstraint* out = contacts.data() + contact_offsets[k];
  for (int p = 0; p < count; ++p) {
    const ContactPoint& cp = m.points[p];
    ContactConstraint c;
    c.body_a = a;
    c.body_b = b;
    c.key = contact_key(a, b, cp.feature_id != 0 ? cp.feature_id : static_cast<std::uint32_t>(p));
    c.normal = cp.normal;
    contact_tangents(cp.normal, c.tangent1, c.tangent2);
    c.anchor_a = quat_rotate(bodies[a].q.conjugate(), cp.point_a - bodies[a].x);
    c.anchor_b = quat_rotate(bodies[b].q.conjugate(), cp.point_b - bodies[b].x);
    c.separation = cp.separation;
    c.friction = friction;
    c.restitution = restitution;
    c.slop = slop;
    out[p] = c;
  }
  const double reach = kWarmMatchFraction * std::min(smallest_sizes[a], smallest_sizes[b]);
  warm_start_pair(pair_first, pair_end, reach, out, count);
}

void World::Impl::build_awake_islands(std::vector<Island>& out) {
  // Sleeping bodies are no unknowns: their joints and islands drop out (world_sleep.cpp).
  IslandInputs& in = island_inputs;
  in.awake.resize(bodies.size());
  for (size_t i = 0; i < bodies.size(); ++i) in.awake[i] = bodies[i].dynamic && !bodies[i].asleep ? 1 : 0;
  in.contact_bodies.resize(contacts.size());
  in.joint_bodies.resize(joints.size());
  for (size_t k = 0; k < contacts.size(); ++k) in.contact_bodies[k] = {contacts[k].body_a, contacts[k].body_b};
  for (size_t k = 0; k < joints.size(); ++k) in.joint_bodies[k] = {joints[k].body_a, joints[k].body_b};
  build_islands(in.awake, in.contact_bodies, in.joint_bodies, in.scratch, out);
}

void World::Impl::order_islands_by_size() {
  // Islands are handed to threads one at a time, biggest first, so that a pile's big islands do
  // not end up together at the end of a chunk (longest-processing-time-first scheduling). Each
  // island writes only its own bodies, contacts and joints: the order never changes results.
  island_order.resize(islands.size());
  for (size_t i = 0; i < islands.size(); ++i) island_order[i] = static_cast<int>(i);
  auto blocks = [&](int i) { return islands[i].contacts.size() + islands[i].joints.size(); };
  std::sort(island_order.begin(), island_order.end(), [&](int a, int b) {
    return blocks(a) != blocks(b) ? blocks(a) > blocks(b) : a < b;
  });
}

void World::Impl::assign_island_solvers() {
  solver_assignment.assign(islands, static_cast<int>(bodies.size()));
  if (static_cast<int>(island_solvers.size()) < solver_assignment.solver_count())
    island_solvers.resize(solver_assignment.solver_count());
  // The method choice's history stays with the place in the island list, where it was when
  // solvers were handed out by place. Following the island instead (a failed elimination
  // backing off for that island) took the 10,000-box pile's deepest overlap from 3.4 to 14.5
  // mm. Not through its big islands: their eliminations never succeed there, and a failed one
  // changes no result (without restitution), so each big island holds back its own attempts
  // (IslandBlockSolver::choose_exact) with every result the same; small islands do succeed
  // after failing, and when they retry is what moves the results.
  if (island_history.size() < islands.size()) island_history.resize(islands.size());
  // Solvers free their buffers when long without an island (a pile merging: 8 steps for a
  // big island's, 960 for a small one's) or when their island is much smaller
  // (IslandBlockSolver::idle and ::fit). Only the solvers that hold buffers are visited, from
  // a list: a call on every solver had cost the 10,000-box pile a cache miss on each of its
  // 10,000 solvers (2.8 kB apart) every step, 0.3 ms. The order of the calls moves nothing:
  // each solver frees only its own.
  solver_listed.resize(island_solvers.size(), 0);
  for (size_t i = 0; i < islands.size(); ++i) {
    const int j = solver_assignment.solver(static_cast<int>(i));
    if (!solver_listed[j]) {
      solver_listed[j] = 1;
      solvers_holding_buffers.push_back(j);
    }
  }
  std::size_t kept = 0;
  for (const int j : solvers_holding_buffers) {
    const bool serving = solver_assignment.serving(j);
    if (!serving) island_solvers[j].idle();
    if (serving || island_solvers[j].holds_buffers()) solvers_holding_buffers[kept++] = j;
    else solver_listed[j] = 0;
  }
  solvers_holding_buffers.resize(kept);
}

template <class Solve>
void World::Impl::for_small_islands(Solve&& solve) {
  // Small islands are solved in parallel, one thread each, largest first (island_order). One
  // that holds nearly all of their blocks (ellipsoids_500's settling heap: a lone island of
  // 837 blocks, just short of being dissected) would keep one thread busy while the others
  // wait: it runs first, alone, with every thread for its per-block loops. Its sweeps stay
  // serial in block order (only dissected islands sweep in parallel), so the results are the
  // same for any thread count.
  auto blocks = [&](int i) { return islands[i].contacts.size() + islands[i].joints.size(); };
  std::size_t small_blocks = 0;
  int lead = -1;
  for (const int i : island_order) {
    if (is_big_island(islands[i], block_settings)) continue;
    if (lead < 0) lead = i;
    small_blocks += blocks(i);
  }
  if (lead >= 0 && blocks(lead) >= kMinLeadIslandBlocks &&
      kLeadIslandShare * (small_blocks - blocks(lead)) <= blocks(lead)) {
    solve(lead, def.threads);
    small_blocks -= blocks(lead);
  } else {
    lead = -1;
  }
  // An island is an expensive item (a ragdoll's about 30 µs): two already pay for a parallel
  // region, unless they are tiny. parallel_for's default of 32 items kept ragdolls_20's dozen
  // islands on one thread at any thread count.
  const std::ptrdiff_t min_parallel = small_blocks >= kMinParallelIslandBlocks ? 2 : kMinParallel;
  parallel_for(static_cast<std::ptrdiff_t>(islands.size()), def.threads, [&](std::ptrdiff_t n) {
    const int i = island_order[n];
    if (i != lead && !is_big_island(islands[i], block_settings)) solve(i, 1);
  }, 1, min_parallel);
}

void World::Impl::solve_contacts(double h) {
  if (def.solver == SolverType::SequentialImpulse) {
    sequential_impulse.prepare(bodies, contacts, h, solver_settings);
    // Sleeping bodies are not solved: only joints with an awake body (world_sleep.cpp).
    sequential_impulse.prepare_joints(bodies, solver_joints(), h, si_joint_blocks);
    sequential_impulse.solve_velocities(bodies, contacts, solver_settings, &si_joint_blocks);
    sequential_impulse.store_joint_impulses(si_joint_blocks, solver_joints());
    store_solver_joints();
    return;
  }
  // Block solver: islands of dynamic bodies, solved in parallel; each island writes only its
  // own bodies, contacts and joints, so the result does not depend on the thread count.
  build_awake_islands(islands);
  islands_built_at = wake_count;
  assign_island_solvers();
  island_info.assign(islands.size(), IslandSolveInfo{});
  const double restitution_threshold = block_settings.restitution_threshold;
  // Islands big enough for parallel sweeps of their own (graph-coloured) run one after another
  // with all threads, the others in parallel with one thread each.
  auto solve_island = [&](std::ptrdiff_t i, int threads) {
    const std::vector<int>& island_contacts = islands[i].contacts;
    parallel_for_static(static_cast<std::ptrdiff_t>(island_contacts.size()), threads, [&](std::ptrdiff_t n) {
      prefetch_contact_ahead(contacts, bodies, island_contacts.data(), island_contacts.size(), n);
      ContactConstraint& c = contacts[island_contacts[n]];
      prepare_contact_geometry(c, bodies[c.body_a], bodies[c.body_b], h, restitution_threshold);
    });
    BlockSolverSettings settings = block_settings;
    settings.threads = threads;
    IslandBlockSolver& solver = island_solvers[solver_assignment.solver(i)];
    solver.fit(islands[i]);
    solver.set_history(island_history[i]);
    island_info[i] = solver.solve_velocities(islands[i], bodies, contacts, joints, h,
                                             settings, &island_inputs.scratch.position);
    island_history[i] = solver.history();
  };
  order_islands_by_size();
  for_small_islands(solve_island);
  for (size_t i = 0; i < islands.size(); ++i) {
    if (is_big_island(islands[i], block_settings)) solve_island(static_cast<std::ptrdiff_t>(i), def.threads);
  }
  for (const IslandSolveInfo& info : island_info) {
    stats.active_set_iterations_max = std::max(stats.active_set_iterations_max, info.active_set_iterations);
    if (info.exact) ++stats.exact_island_solves; else ++stats.iterative_island_solves;
    if (info.fell_back) ++stats.active_set_fallbacks;
    if (info.exact_attempted && (!info.exact || info.fell_back)) ++stats.exact_attempts_failed;
    if (info.exact_skipped) ++stats.exact_attempts_skipped;
  }
}

void World::Impl::stabilize_positions() {
  double deepest = 0;
  if (def.solver == SolverType::SequentialImpulse) {
    deepest = sequential_impulse.correct_positions(bodies, contacts, solver_settings);
    sequential_impulse.correct_joint_positions(bodies, solver_joints(), si_joint_blocks, solver_settings);
  } else {
    BlockSolverSettings big_settings = block_settings;
    big_settings.threads = def.threads;
    for_small_islands([&](int i, int threads) {
      BlockSolverSettings settings = block_settings;
      settings.threads = threads;
      island_solvers[solver_assignment.solver(i)].stabilize_positions(bodies, contacts, joints, settings);
    });
    for (size_t i = 0; i < islands.size(); ++i) {
      if (is_big_island(islands[i], block_settings))
        island_solvers[solver_assignment.solver(i)].stabilize_positions(bodies, contacts, joints, big_settings);
    }
    deepest = parallel_max(0, static_cast<std::ptrdiff_t>(contacts.size()), def.threads, [&](std::ptrdiff_t k) {
      prefetch_contact_ahead(contacts, bodies, nullptr, contacts.size(), k);
      const ContactConstraint& c = contacts[k];
      return -contact_separation(c, bodies[c.body_a], bodies[c.body_b]);
    });
  }
  last_max_penetration = std::max(last_max_penetration, deepest);
}

void World::Impl::measure_joint_errors() {
  last_joint_error = 0;
  for (const JointSim& j : joints) {
    JointError e = measure_joint_error(j, bodies);
    last_joint_error = std::max(last_joint_error, e.linear);
    stats.joint_error_max = std::max(stats.joint_error_max, e.linear);
    stats.joint_angle_error_max = std::max(stats.joint_angle_error_max, e.angular);
  }
}

void World::Impl::store_warm_start() {
  // Grown by doubling, not to the exact count: a pile whose contacts grow a few each step
  // reallocated its whole cache every step (the 10,000-box pile: 42,000 records, page faults
  // on fresh memory each time, 0.5% of its step).
  if (warm_cache.capacity() < contacts.size()) {
    warm_cache.clear();  // nothing to copy over
    warm_cache.reserve(std::max(contacts.size(), 2 * warm_cache.capacity()));
  }
  // Each contact its own record, in parallel: serially, with the cache cleared and refilled,
  // it was a serial 1% of pile_spheres_1k's step at 2 threads. Every record is assigned.
  warm_cache.resize(contacts.size());
  parallel_for(static_cast<std::ptrdiff_t>(contacts.size()), def.threads, [&](std::ptrdiff_t k) {
    warm_cache[k] = cached_impulse(contacts[k]);
  }, 0, kMinParallelCheap);
  sort_warm_cache(warm_cache);
}

}  // namespace impetus
