// Block elimination against a dense LU (Eigen) of the same KKT system, for the three orderings
// of paper 5 on random islands (trees and loops), and the no-fill-in property of leaves-first.
#include <gtest/gtest.h>

#include <random>

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
struct RandomIsland {
  int bodies = 0;
  std::vector<std::array<int, 2>> edges;
  Eigen::MatrixXd dense;
  BlockSparseLu lu;
  std::vector<Vec3> rhs;
  Eigen::VectorXd dense_rhs;
};

RandomIsland make_island(int bodies, int extra, std::uint64_t seed) {
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
  const int n = 2 * bodies + static_cast<int>(isl.edges.size());
  isl.lu.reset(n);
  isl.dense = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  auto add = [&](int r, int c, const Mat3& a) {
    isl.lu.add(r, c, a);
    isl.dense.block<3, 3>(3 * r, 3 * c) += a;
  };
  for (int b = 0; b < bodies; ++b) {
    add(2 * b, 2 * b, random_spd(rng));
    add(2 * b + 1, 2 * b + 1, random_spd(rng));
  }
  for (size_t k = 0; k < isl.edges.size(); ++k) {
    const int row = 2 * bodies + static_cast<int>(k);
    for (int body : isl.edges[k]) {
      Mat3 jv = random_block(rng), jw = random_block(rng);
      add(row, 2 * body, jv);
      add(row, 2 * body + 1, jw);
      add(2 * body, row, -jv.transpose());
      add(2 * body + 1, row, -jw.transpose());
    }
    add(row, row, 1e-3 * Mat3::Identity());
  }
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

TEST_P(BlockEliminationTest, MatchesDenseLuOnRandomIslands) {
  const char which = std::get<0>(GetParam());
  const int extra = std::get<1>(GetParam());
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    RandomIsland isl = make_island(12, extra, seed);
    Eigen::VectorXd expected = isl.dense.partialPivLu().solve(isl.dense_rhs);
    std::vector<int> rows, pivots;
    orders(isl, which, rows, pivots);
    ASSERT_TRUE(isl.lu.factorize(rows, pivots)) << which << " seed " << seed;
    std::vector<Vec3> x;
    isl.lu.solve(isl.rhs, x);
    double err = 0;
    for (int i = 0; i < isl.lu.size(); ++i)
      err = std::max(err, (x[i] - expected.segment<3>(3 * i)).cwiseAbs().maxCoeff());
    EXPECT_LT(err, 1e-10 * std::max(1.0, expected.cwiseAbs().maxCoeff())) << which << " seed " << seed;
  }
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
