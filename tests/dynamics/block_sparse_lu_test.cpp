// Block elimination against a dense LU (Eigen) of the same KKT system, for the three orderings
// of paper 5 on random islands (trees and loops), and the no-fill-in property of leaves-first.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include <Eigen/Dense>

#include "dynamics/block_sparse_lu.h"
#include "tests/random_draws.h"

namespace impetus {
namespace {

Mat3 random_spd(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Mat3 a;
  for (int i = 0; i < 9; ++i) a(i) = u(rng);
  return a * a.transpose() + Mat3::Identity();
}

Mat3 random_block(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Mat3 a;
  for (int i = 0; i < 9; ++i) a(i) = u(rng);
  return a;
}

// A KKT system like the solver's: per body two momentum rows (v, ω) with SPD diagonal blocks,
// per constraint one row coupling two bodies (edges of a random tree, plus `extra` loop edges).
// The structure comes from `seed`, the values from `value_seed` (same structure, new values:
// what an island's next factorisation sees).
struct RandomIsland {
  int bodies = 0;
  std::vector<std::array<int, 2>> edges;
  struct Entry {
    int row, col;
    Mat3 a;
  };
  std::vector<Entry> entries;  // in assembly order (an entry may add to an earlier block)
  Eigen::MatrixXd dense;
  BlockSparseLu lu;
  std::vector<Vec3> rhs;
  Eigen::VectorXd dense_rhs;

  int size() const { return 2 * bodies + static_cast<int>(edges.size()); }
  /// Assembles the system into `into` (reset first).
  void assemble(BlockSparseLu& into) const {
    into.reset(size());
    for (const Entry& e : entries) into.add(e.row, e.col, e.a);
  }
};

// `linear_diagonal`: the bodies' linear momentum blocks are m·I and the constraints' linear
// blocks ±I, as for point joints (their multipliers and inverses are diagonal).
RandomIsland make_island(int bodies, int extra, std::uint64_t seed, std::uint64_t value_seed = 0,
                         bool linear_diagonal = false) {
  std::mt19937_64 rng(seed);
  RandomIsland isl;
  isl.bodies = bodies;
  for (int i = 1; i < bodies; ++i) {
    std::uniform_int_distribution<int> parent(0, i - 1);
    isl.edges.push_back({parent(rng), i});
  }
  for (int e = 0; e < extra; ++e) {
    std::uniform_int_distribution<int> pick(0, bodies - 1);
    int a = pick(rng), b = pick(rng);
    if (a != b) isl.edges.push_back({std::min(a, b), std::max(a, b)});
  }
  if (value_seed != 0) rng.seed(value_seed);
  const int n = isl.size();
  isl.dense = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  auto add = [&](int r, int c, const Mat3& a) {
    isl.entries.push_back({r, c, a});
    isl.dense.block<3, 3>(3 * r, 3 * c) += a;
  };
  std::uniform_real_distribution<double> mass(0.5, 20.0);
  for (int b = 0; b < bodies; ++b) {
    add(2 * b, 2 * b, linear_diagonal ? Mat3(mass(rng) * Mat3::Identity()) : random_spd(rng));
    add(2 * b + 1, 2 * b + 1, random_spd(rng));
  }
  for (size_t k = 0; k < isl.edges.size(); ++k) {
    const int row = 2 * bodies + static_cast<int>(k);
    for (int body : isl.edges[k]) {
      const double side = body == isl.edges[k][0] ? -1.0 : 1.0;
      Mat3 jv = linear_diagonal ? Mat3(side * Mat3::Identity()) : random_block(rng);
      Mat3 jw = random_block(rng);
      add(row, 2 * body, jv);
      add(row, 2 * body + 1, jw);
      add(2 * body, row, -jv.transpose());
      add(2 * body + 1, row, -jw.transpose());
    }
    add(row, row, 1e-3 * Mat3::Identity());
  }
  isl.assemble(isl.lu);
  std::uniform_real_distribution<double> u(-1, 1);
  isl.rhs.resize(n);
  isl.dense_rhs.resize(3 * n);
  for (int i = 0; i < n; ++i) {
    isl.rhs[i] = test::draw_vec3(u, rng);
    isl.dense_rhs.segment<3>(3 * i) = isl.rhs[i];
  }
  return isl;
}

// Row orders of the three orderings for this generic island (bodies numbered topologically).
void orders(const RandomIsland& isl, char which, std::vector<int>& rows, std::vector<int>& pivots) {
  const int nb = isl.bodies, nc = static_cast<int>(isl.edges.size());
  rows.clear();
  pivots.clear();
  if (which == 'B') {
    for (int r = 0; r < 2 * nb; ++r) rows.push_back(r);
    // Leaves first: edges to higher-numbered (deeper) bodies first.
    std::vector<int> order(nc);
    for (int k = 0; k < nc; ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return isl.edges[a][1] > isl.edges[b][1]; });
    for (int k : order) rows.push_back(2 * nb + k);
    return;
  }
  if (which == 'A') {
    for (int b = 0; b < nb; ++b) {
      rows.push_back(2 * b);
      rows.push_back(2 * b + 1);
      for (int k = 0; k < nc; ++k)
        if (isl.edges[k][1] == b) rows.push_back(2 * nb + k);
    }
  } else {
    for (int k = 0; k < nc; ++k) rows.push_back(2 * nb + k);
    for (int r = 0; r < 2 * nb; ++r) rows.push_back(r);
  }
  pivots.assign(rows.size(), -1);
}

class BlockEliminationTest : public ::testing::TestWithParam<std::tuple<char, int>> {};

double error_against_dense_lu(const RandomIsland& isl, const BlockSparseLu& lu) {
  const Eigen::VectorXd expected = isl.dense.partialPivLu().solve(isl.dense_rhs);
  std::vector<Vec3> x;
  lu.solve(isl.rhs, x);
  double err = 0;
  for (int i = 0; i < isl.size(); ++i)
    err = std::max(err, (x[i] - expected.segment<3>(3 * i)).cwiseAbs().maxCoeff());
  return err / std::max(1.0, expected.cwiseAbs().maxCoeff());
}

TEST_P(BlockEliminationTest, MatchesDenseLuOnRandomIslands) {
  const char which = std::get<0>(GetParam());
  const int extra = std::get<1>(GetParam());
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    RandomIsland isl = make_island(12, extra, seed);
    std::vector<int> rows, pivots;
    orders(isl, which, rows, pivots);
    ASSERT_TRUE(isl.lu.factorize(rows, pivots)) << which << " seed " << seed;
    EXPECT_LT(error_against_dense_lu(isl, isl.lu), 1e-10) << which << " seed " << seed;
  }
}

TEST_P(BlockEliminationTest, RefactoringTheSamePatternReplaysTheRecordedElimination) {
  // One LU object refactors islands of one structure with new values, as a solver does from
  // step to step. Ordering B's diagonal pivots always replay; A and C choose pivots by value,
  // so a replay must notice a different choice and eliminate afresh. Either way the factors
  // must be exactly those of a fresh elimination of the same values, and solve the system.
  const char which = std::get<0>(GetParam());
  const int extra = std::get<1>(GetParam());
  BlockSparseLu reused;
  int replays = 0;
  for (std::uint64_t values = 1; values <= 6; ++values) {
    const RandomIsland isl = make_island(12, extra, 7, values);
    std::vector<int> rows, pivots;
    orders(isl, which, rows, pivots);
    isl.assemble(reused);
    ASSERT_TRUE(reused.factorize(rows, pivots)) << which << " values " << values;
    replays += reused.last_factorization_replayed() ? 1 : 0;
    if (values == 1) EXPECT_FALSE(reused.last_factorization_replayed());
    BlockSparseLu fresh;
    isl.assemble(fresh);
    ASSERT_TRUE(fresh.factorize(rows, pivots));
    EXPECT_FALSE(fresh.last_factorization_replayed());
    EXPECT_EQ(reused.factor_block_ops(), fresh.factor_block_ops());
    EXPECT_EQ(reused.fill_blocks(), fresh.fill_blocks());
    std::vector<Vec3> x_reused, x_fresh;
    reused.solve(isl.rhs, x_reused);
    fresh.solve(isl.rhs, x_fresh);
    for (int i = 0; i < isl.size(); ++i) ASSERT_EQ(x_reused[i], x_fresh[i]) << which << " row " << i;
    EXPECT_LT(error_against_dense_lu(isl, reused), 1e-10) << which << " values " << values;
  }
  if (which == 'B') EXPECT_EQ(replays, 5);
  // A different structure in the same object: eliminated afresh, and still right.
  const RandomIsland other = make_island(12, extra + 2, 8);
  std::vector<int> rows, pivots;
  orders(other, which, rows, pivots);
  other.assemble(reused);
  ASSERT_TRUE(reused.factorize(rows, pivots));
  EXPECT_FALSE(reused.last_factorization_replayed());
  EXPECT_LT(error_against_dense_lu(other, reused), 1e-10);
}

TEST(BlockElimination, ValuesWrittenIntoTheRecordedSlotsRefactorLikeAssemblingAgain) {
  // The articulated super-block assembles one pattern step after step and writes its values
  // straight into the recorded program's slots (pattern_slot, pattern_values, refactorize):
  // with each slot getting add()'s sums in add()'s order, the factors must be bit for bit those
  // of assembling and factorising afresh, and solve the system (against a dense LU), also in
  // place (solve_in_place).
  for (const int extra : {0, 3}) {
    BlockSparseLu refilled;
    const RandomIsland first = make_island(12, extra, 7, 1);
    std::vector<int> rows, pivots;
    orders(first, 'B', rows, pivots);
    ASSERT_TRUE(pivots.empty());
    first.assemble(refilled);
    ASSERT_TRUE(refilled.factorize(rows, pivots));
    ASSERT_TRUE(refilled.records(first.size(), rows));
    // The pattern is the assembled blocks, no more: a slot exactly where an entry was added.
    std::set<std::pair<int, int>> added;
    for (const RandomIsland::Entry& e : first.entries) added.insert({e.row, e.col});
    for (int r = 0; r < first.size(); ++r)
      for (int c = 0; c < first.size(); ++c)
        EXPECT_EQ(refilled.pattern_slot(r, c) >= 0, added.count({r, c}) == 1) << r << ", " << c;
    // Another order or size is not the recorded program.
    std::vector<int> reversed(rows.rbegin(), rows.rend());
    EXPECT_FALSE(refilled.records(first.size(), reversed));
    EXPECT_FALSE(refilled.records(first.size() + 1, rows));
    for (std::uint64_t values = 2; values <= 5; ++values) {
      const RandomIsland isl = make_island(12, extra, 7, values);
      // Every block in two parts, the second added after all the firsts (as S's couplings
      // reach a block from each body the two joint blocks share).
      std::vector<RandomIsland::Entry> parts;
      for (const RandomIsland::Entry& e : isl.entries) parts.push_back({e.row, e.col, 0.25 * e.a});
      for (const RandomIsland::Entry& e : isl.entries) parts.push_back({e.row, e.col, e.a - 0.25 * e.a});
      Mat3* const slot_value = refilled.pattern_values();
      std::set<int> written;
      for (const RandomIsland::Entry& e : parts) {
        const int slot = refilled.pattern_slot(e.row, e.col);
        ASSERT_GE(slot, 0);
        if (written.insert(slot).second) slot_value[slot] = e.a;
        else slot_value[slot] += e.a;
      }
      ASSERT_TRUE(refilled.refactorize());
      BlockSparseLu fresh;
      fresh.reset(isl.size());
      for (const RandomIsland::Entry& e : parts) fresh.add(e.row, e.col, e.a);
      ASSERT_TRUE(fresh.factorize(rows, pivots));
      std::vector<Vec3> x_refilled, x_fresh;
      refilled.solve(isl.rhs, x_refilled);
      fresh.solve(isl.rhs, x_fresh);
      for (int i = 0; i < isl.size(); ++i) ASSERT_EQ(x_refilled[i], x_fresh[i]) << "extra " << extra << " row " << i;
      // Diagonal pivots: the solve may write x over b (the super-block's sweeps do), same bits.
      std::vector<Vec3> in_place = isl.rhs;
      refilled.solve_in_place(in_place);
      for (int i = 0; i < isl.size(); ++i) ASSERT_EQ(in_place[i], x_fresh[i]) << "extra " << extra << " row " << i;
      EXPECT_LT(error_against_dense_lu(isl, refilled), 1e-10) << "extra " << extra << " values " << values;
    }
  }
}

TEST(BlockElimination, SystemsOfOneSizeWithOtherPatternsReuseTheRowsRoomAndStayExact) {
  // A system of the size of the last one keeps each row's room where it was (Rows::reset): rows
  // then hold other blocks than before, some outgrow their room and move, and assembly adds
  // blocks out of column order. Random trees of 12 bodies all have 35 block rows; each, in each
  // ordering, must give the very bits of a fresh object and solve the system.
  BlockSparseLu reused;
  int moved_patterns = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const RandomIsland isl = make_island(12, 0, 100 + seed);
    ASSERT_EQ(isl.size(), 35);
    for (char which : {'A', 'B', 'C'}) {
      std::vector<int> rows, pivots;
      orders(isl, which, rows, pivots);
      isl.assemble(reused);
      int stored = 0;
      reused.for_each_block([&](int r, int c, const Mat3& a) {
        const Mat3 expected = isl.dense.block<3, 3>(3 * r, 3 * c);
        EXPECT_EQ(a, expected) << which << " seed " << seed << " block " << r << ", " << c;
        ++stored;
      });
      EXPECT_EQ(stored, 35 + 4 * 2 * 11);  // diagonals, and per edge 2 bodies × 4 blocks
      BlockSparseLu fresh;
      isl.assemble(fresh);
      ASSERT_EQ(reused.factorize(rows, pivots), fresh.factorize(rows, pivots));
      EXPECT_EQ(reused.fill_blocks(), fresh.fill_blocks());
      moved_patterns += fresh.fill_blocks() > 0 ? 1 : 0;
      std::vector<Vec3> x_reused, x_fresh;
      reused.solve(isl.rhs, x_reused);
      fresh.solve(isl.rhs, x_fresh);
      for (int i = 0; i < isl.size(); ++i) ASSERT_EQ(x_reused[i], x_fresh[i]) << which << " row " << i;
      EXPECT_LT(error_against_dense_lu(isl, reused), 1e-10) << which << " seed " << seed;
    }
  }
  // Orderings A and C fill in: rows grew past the room the previous pattern left them.
  EXPECT_GT(moved_patterns, 10);
}

TEST(BlockElimination, PointJointIslandsWithDiagonalBlocksReplayWithFullValuesAndBack) {
  // Point joints make diagonal blocks (the bodies' m·I, the constraints' ±I): their inverses
  // and multipliers have exact zeros off the diagonal. A pattern recorded with such values and
  // replayed with full ones (same structure), then with diagonal ones again, must solve each
  // system, and give a fresh elimination's bits.
  for (char which : {'A', 'B', 'C'}) {
    for (int extra : {0, 3}) {
      const RandomIsland diagonal = make_island(10, extra, 5, 1, true);
      std::vector<int> rows, pivots;
      orders(diagonal, which, rows, pivots);
      BlockSparseLu lu;
      diagonal.assemble(lu);
      ASSERT_TRUE(lu.factorize(rows, pivots)) << which;
      EXPECT_LT(error_against_dense_lu(diagonal, lu), 1e-10) << which << " extra " << extra;
      const RandomIsland full = make_island(10, extra, 5, 2, false);
      full.assemble(lu);
      ASSERT_TRUE(lu.factorize(rows, pivots)) << which;
      if (which == 'B') {
        EXPECT_TRUE(lu.last_factorization_replayed());
      }
      EXPECT_LT(error_against_dense_lu(full, lu), 1e-10) << which << " extra " << extra;
      diagonal.assemble(lu);
      ASSERT_TRUE(lu.factorize(rows, pivots)) << which;
      EXPECT_LT(error_against_dense_lu(diagonal, lu), 1e-10) << which << " extra " << extra;
      BlockSparseLu fresh;
      diagonal.assemble(fresh);
      ASSERT_TRUE(fresh.factorize(rows, pivots));
      std::vector<Vec3> x_replayed, x_fresh;
      lu.solve(diagonal.rhs, x_replayed);
      fresh.solve(diagonal.rhs, x_fresh);
      for (int i = 0; i < diagonal.size(); ++i) ASSERT_EQ(x_replayed[i], x_fresh[i]) << which << " row " << i;
    }
  }
}

TEST(BlockElimination, ReplayStopsAtTheBudgetAndAtSingularPivotsLikeAFreshElimination) {
  const RandomIsland isl = make_island(30, 6, 11);
  std::vector<int> rows, pivots;
  orders(isl, 'B', rows, pivots);
  BlockSparseLu lu;
  isl.assemble(lu);
  ASSERT_TRUE(lu.factorize(rows, pivots));
  const long long ops = lu.factor_block_ops();
  // A budget the elimination overruns: refused, replayed or not.
  isl.assemble(lu);
  EXPECT_FALSE(lu.factorize(rows, pivots, ops / 2));
  EXPECT_TRUE(lu.last_factorization_replayed());
  // The refusal left the program intact: the next system replays within budget.
  isl.assemble(lu);
  ASSERT_TRUE(lu.factorize(rows, pivots, ops));
  EXPECT_TRUE(lu.last_factorization_replayed());
  EXPECT_LT(error_against_dense_lu(isl, lu), 1e-10);
  // A singular diagonal block (a massless body) is refused as a fresh elimination refuses it.
  RandomIsland singular = isl;
  singular.entries[0].a.setZero();
  singular.assemble(lu);
  EXPECT_FALSE(lu.factorize(rows, pivots));
  BlockSparseLu fresh;
  singular.assemble(fresh);
  EXPECT_FALSE(fresh.factorize(rows, pivots));
}

INSTANTIATE_TEST_SUITE_P(Orderings, BlockEliminationTest,
                         ::testing::Combine(::testing::Values('A', 'B', 'C'),
                                            ::testing::Values(0, 4)));

TEST(BlockElimination, LeavesFirstOrderingBHasNoFillBeyondBodyCliquesOnTrees) {
  // Eliminating a body couples the constraints at that body (its clique); leaves-first then
  // eliminates constraints with no further fill. Compare fill against the clique bound.
  RandomIsland isl = make_island(200, 0, 3);
  std::vector<int> rows, pivots;
  orders(isl, 'B', rows, pivots);
  ASSERT_TRUE(isl.lu.factorize(rows, pivots));
  std::vector<int> degree(isl.bodies, 0);
  for (const auto& e : isl.edges) {
    ++degree[e[0]];
    ++degree[e[1]];
  }
  long long clique_blocks = 0;
  for (int d : degree) clique_blocks += static_cast<long long>(d) * (d - 1);
  EXPECT_LE(isl.lu.fill_blocks(), clique_blocks);
}

TEST(BlockElimination, OrderingCostsDifferAndBIsCheapestOnATree) {
  RandomIsland a = make_island(60, 0, 5), b = make_island(60, 0, 5), c = make_island(60, 0, 5);
  std::vector<int> rows, pivots;
  orders(a, 'A', rows, pivots);
  ASSERT_TRUE(a.lu.factorize(rows, pivots));
  orders(b, 'B', rows, pivots);
  ASSERT_TRUE(b.lu.factorize(rows, pivots));
  orders(c, 'C', rows, pivots);
  ASSERT_TRUE(c.lu.factorize(rows, pivots));
  EXPECT_LE(b.lu.factor_block_ops(), a.lu.factor_block_ops());
  EXPECT_LT(b.lu.factor_block_ops(), c.lu.factor_block_ops());
}

}  // namespace
}  // namespace impetus
