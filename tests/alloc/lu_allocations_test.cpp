// Heap allocations of the block elimination (issue 10): its rows share one pool, so a fresh
// factorisation of a big system allocates a few times (the pool's doublings), not once per row
// as a vector per row did (the 10,000-box pile: 10,000 to 35,000 allocations a step, most of
// them here, as islands moved between solvers). A count, not a time; the solution is checked
// against a dense LU so that the count is of a working elimination.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "dynamics/block_sparse_lu.h"
#include "tools/bench/allocation_counter.h"

namespace impetus {
namespace {

// A KKT system like an island's: two momentum rows per body (SPD diagonal blocks), one row per
// constraint between two bodies (a chain, plus random loop edges that make fill-in), its
// diagonal the constraint's negative regularisation.
struct KktSystem {
  int bodies = 0;
  std::vector<std::array<int, 2>> edges;
  struct Entry {
    int row, col;
    Mat3 a;
  };
  std::vector<Entry> entries;
  int size() const { return 2 * bodies + static_cast<int>(edges.size()); }
};

KktSystem make_system(int bodies, int loops, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  auto block = [&] {
    Mat3 a;
    for (int i = 0; i < 9; ++i) a(i) = u(rng);
    return a;
  };
  KktSystem s;
  s.bodies = bodies;
  for (int b = 1; b < bodies; ++b) s.edges.push_back({b - 1, b});
  std::uniform_int_distribution<int> pick(0, bodies - 1);
  for (int e = 0; e < loops; ++e) {
    const int a = pick(rng), b = pick(rng);
    if (a != b) s.edges.push_back({a, b});
  }
  for (int b = 0; b < bodies; ++b) {
    for (int r = 0; r < 2; ++r) {
      const Mat3 m = block();
      s.entries.push_back({2 * b + r, 2 * b + r, m * m.transpose() + Mat3::Identity()});
    }
  }
  for (int k = 0; k < static_cast<int>(s.edges.size()); ++k) {
    const int row = 2 * bodies + k;
    for (int body : s.edges[k]) {
      for (int r = 0; r < 2; ++r) {
        const Mat3 j = block();
        s.entries.push_back({row, 2 * body + r, j});
        s.entries.push_back({2 * body + r, row, j.transpose()});
      }
    }
    s.entries.push_back({row, row, -1e-3 * Mat3::Identity()});
  }
  return s;
}

// Assembles, factors (bodies first, then constraints: diagonal pivots) and solves; returns the
// largest difference from a dense LU's solution.
double factor_and_solve(BlockSparseLu& lu, const KktSystem& s, std::vector<int>& order,
                        std::vector<Vec3>& b, std::vector<Vec3>& x) {
  const int n = s.size();
  lu.reset(n);
  for (const KktSystem::Entry& e : s.entries) lu.add(e.row, e.col, e.a);
  order.resize(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  b.resize(n);
  for (int i = 0; i < n; ++i) b[i] = Vec3(1.0 + i % 7, -0.5 * (i % 3), 0.25);
  if (!lu.factorize(order)) return 1e300;
  lu.solve(b, x);
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  for (const KktSystem::Entry& e : s.entries) dense.block<3, 3>(3 * e.row, 3 * e.col) += e.a;
  Eigen::VectorXd rhs(3 * n);
  for (int i = 0; i < n; ++i) rhs.segment<3>(3 * i) = b[i];
  const Eigen::VectorXd reference = dense.partialPivLu().solve(rhs);
  double worst = 0;
  for (int i = 0; i < n; ++i) worst = std::max(worst, (x[i] - reference.segment<3>(3 * i)).cwiseAbs().maxCoeff());
  return worst;
}

// Allocations of a fresh solver's reset, assembly and elimination of `s`.
long long fresh_factorisation_allocations(const KktSystem& s) {
  std::vector<int> identity(s.size());
  for (int i = 0; i < s.size(); ++i) identity[i] = i;
  BlockSparseLu lu;
  const long long start = bench::allocation_count();
  lu.reset(s.size());
  for (const KktSystem::Entry& e : s.entries) lu.add(e.row, e.col, e.a);
  EXPECT_TRUE(lu.factorize(identity));
  const long long count = bench::allocation_count() - start;
  EXPECT_GT(lu.fill_blocks(), 0) << "the loops must make fill-in (rows that grow)";
  return count;
}

TEST(BlockSparseLuAllocations, AFreshFactorisationAllocatesAFewTimesNotOncePerRow) {
  // Four times the rows: a few more doublings of each buffer, not thousands of row buffers.
  const KktSystem big = make_system(300, 15, 1);  // 300 bodies, about 314 constraints
  const KktSystem bigger = make_system(1200, 60, 3);
  const long long small_count = fresh_factorisation_allocations(big);
  const long long big_count = fresh_factorisation_allocations(bigger);
  EXPECT_LT(big_count, bigger.size() / 10) << bigger.size() << " block rows";
  EXPECT_LT(big_count - small_count, 60) << big.size() << " then " << bigger.size() << " block rows";

  // Smaller systems for the dense reference: one big and one small, with more loops.
  const KktSystem one = make_system(120, 30, 4);
  const KktSystem other = make_system(100, 50, 2);
  std::vector<int> order;
  std::vector<Vec3> b, x;
  order.reserve(one.size());  // the test's own scratch, sized before counting
  b.reserve(one.size());
  x.reserve(one.size());
  BlockSparseLu lu;
  // Solutions against a dense LU, then the two patterns taking turns, as islands handed to one
  // solver do: once both were held, no further allocation.
  EXPECT_LT(factor_and_solve(lu, one, order, b, x), 1e-8);
  EXPECT_LT(factor_and_solve(lu, other, order, b, x), 1e-8);
  long long turns = 0;
  for (int round = 0; round < 3; ++round) {
    for (const KktSystem* s : {&one, &other}) {
      const int n = s->size();
      const long long before = bench::allocation_count();
      lu.reset(n);
      for (const KktSystem::Entry& e : s->entries) lu.add(e.row, e.col, e.a);
      order.resize(n);
      for (int i = 0; i < n; ++i) order[i] = i;
      b.assign(n, Vec3(1, 2, 3));
      lu.forget_program();  // each turn eliminates afresh (a replay would allocate nothing anyway)
      ASSERT_TRUE(lu.factorize(order));
      lu.solve(b, x);
      turns += bench::allocation_count() - before;
    }
  }
  EXPECT_EQ(turns, 0);
}

}  // namespace
}  // namespace impetus
