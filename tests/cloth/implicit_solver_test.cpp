// The cloth's implicit solve against dense references: the hand-written 3×3 block kernels
// against Eigen's products, the incomplete factorisation where it is exact (a block-tridiagonal
// matrix has no fill, so IC(0) is its Cholesky factorisation) against a dense solve, the
// assembled system (upper blocks summed from the compact element kernels and mirrored, the
// bending term's 1-ring folded in, plus the remainder of its 2-ring stencil) against a dense
// sum of the element kernels' blocks, masses and the whole bending Hessian, and the PCG
// solution with constrained vertices against a dense solve of the free part.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <numeric>

#include <Eigen/Dense>

#include "cloth/block3.h"
#include "cloth/block_ichol.h"
#include "cloth/cloth_mesh.h"
#include "cloth/cloth_model.h"
#include "cloth/cloth_parallel.h"
#include "cloth/cloth_topology.h"
#include "cloth/implicit_solver.h"
#include "cloth_test_util.h"

namespace impetus {
namespace {

using cloth_test::random_vec;

Mat3 random_mat(std::mt19937_64& rng) {
  Mat3 m;
  for (int c = 0; c < 3; ++c) m.col(c) = random_vec(rng);
  return m;
}

Mat3 random_spd(std::mt19937_64& rng, double shift) {
  const Mat3 m = random_mat(rng);
  return m * m.transpose() + shift * Mat3::Identity();
}

TEST(Block3, KernelsMatchEigen) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const Mat3 a = random_mat(rng), b = random_mat(rng);
    const Vec3 v = random_vec(rng);
    EXPECT_LT((block3::product(a, v) - a * v).norm(), 1e-14);
    Mat3 c;
    block3::product(a, b, c);
    EXPECT_LT((c - a * b).norm(), 1e-14);
    Mat3 d = b;
    block3::subtract_product(a, b, d);
    EXPECT_LT((d - (b - a * b)).norm(), 1e-14);
    EXPECT_NEAR(block3::product_norm(a, b), (a * b).norm(), 1e-14);
    block3::Acc acc;
    acc.add_product(a, v);
    acc.add_scaled(0.5, v);
    EXPECT_LT((acc.vec() - (a * v + 0.5 * v)).norm(), 1e-14);
    // Positive definiteness of the symmetric part, against Eigen's eigenvalues.
    const Mat3 s = random_mat(rng);
    const double lowest = Eigen::SelfAdjointEigenSolver<Mat3>(0.5 * (s + s.transpose())).eigenvalues()(0);
    if (std::abs(lowest) > 1e-9) {
      EXPECT_EQ(block3::symmetric_part_positive_definite(s), lowest > 0) << trial;
    }
  }
  Mat3 nan = Mat3::Identity();
  nan(1, 1) = std::nan("");
  EXPECT_FALSE(block3::symmetric_part_positive_definite(nan));
}

// A symmetric positive definite block matrix on the path 0 – 1 – … – n−1 (block-tridiagonal).
BlockCsrMatrix path_matrix(int n, std::mt19937_64& rng) {
  std::vector<int> offsets(n + 1, 0), neighbors;
  for (int i = 0; i < n; ++i) {
    if (i > 0) neighbors.push_back(i - 1);
    if (i + 1 < n) neighbors.push_back(i + 1);
    offsets[i + 1] = static_cast<int>(neighbors.size());
  }
  BlockCsrMatrix A;
  A.set_pattern(n, offsets, neighbors);
  for (int i = 0; i < n; ++i) {
    A.blocks[A.diagonal[i]] = random_spd(rng, 6.0);
    if (i + 1 < n) {
      const Mat3 off = random_mat(rng);
      A.blocks[A.find(i, i + 1)] = off;
      A.blocks[A.find(i + 1, i)] = off.transpose();
    }
  }
  return A;
}

Eigen::MatrixXd dense(const BlockCsrMatrix& A) {
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(3 * A.rows, 3 * A.rows);
  for (int i = 0; i < A.rows; ++i)
    for (int k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) D.block<3, 3>(3 * i, 3 * A.cols[k]) = A.blocks[k];
  return D;
}

Eigen::VectorXd flat(const std::vector<Vec3>& v) {
  Eigen::VectorXd f(3 * v.size());
  for (size_t i = 0; i < v.size(); ++i) f.segment<3>(3 * i) = v[i];
  return f;
}

// A path system of 12 vertices and a random right-hand side.
struct PathSystem {
  BlockCsrMatrix A;
  std::vector<Vec3> r;
};
PathSystem path_system(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  PathSystem s;
  s.A = path_matrix(12, rng);
  s.r.resize(12);
  for (Vec3& ri : s.r) ri = random_vec(rng);
  return s;
}

// z = A⁻¹ r and dot = rᵀz, against a dense solve.
void expect_exact_solve(const PathSystem& s, const std::vector<Vec3>& z, double dot) {
  const Eigen::VectorXd expected = dense(s.A).ldlt().solve(flat(s.r));
  EXPECT_LT((flat(z) - expected).norm(), 1e-12 * expected.norm());
  EXPECT_NEAR(dot, flat(s.r).dot(expected), 1e-12 * std::abs(flat(s.r).dot(expected)));
}

TEST(BlockIncompleteCholesky, ExactOnABlockTridiagonalMatrix) {
  const PathSystem s = path_system(5);
  const BlockCsrMatrix& A = s.A;
  const std::vector<Vec3>& r = s.r;
  const int n = A.rows;
  std::vector<Vec3> z;
  BlockIncompleteCholesky ic;
  // Unconstrained: z = A⁻¹ r.
  std::vector<char> constrained(n, 0);
  ic.factor(A, constrained);
  double dot = ic.apply(r, z);
  expect_exact_solve(s, z, dot);
  // Constrained vertices 0, 5 and 11 are cut out: z is A_FF⁻¹ r_F on the others, 0 on them.
  constrained[0] = constrained[5] = constrained[11] = 1;
  ic.factor(A, constrained);
  dot = ic.apply(r, z);
  std::vector<int> free;
  for (int i = 0; i < n; ++i)
    if (!constrained[i]) free.push_back(i);
  const int nf = static_cast<int>(free.size());
  const Eigen::MatrixXd D = dense(A);
  Eigen::MatrixXd Dff(3 * nf, 3 * nf);
  Eigen::VectorXd rf(3 * nf);
  for (int a = 0; a < nf; ++a) {
    rf.segment<3>(3 * a) = r[free[a]];
    for (int b = 0; b < nf; ++b) Dff.block<3, 3>(3 * a, 3 * b) = D.block<3, 3>(3 * free[a], 3 * free[b]);
  }
  const Eigen::VectorXd zf = Dff.ldlt().solve(rf);
  for (int a = 0; a < nf; ++a) EXPECT_LT((z[free[a]] - zf.segment<3>(3 * a)).norm(), 1e-12 * zf.norm()) << free[a];
  for (int i : {0, 5, 11}) EXPECT_EQ(z[i], Vec3::Zero());
  EXPECT_NEAR(dot, rf.dot(zf), 1e-12 * std::abs(rf.dot(zf)));
}

TEST(BlockIncompleteCholesky, SplitOrderIsExactOnAPathAndTheSameBitsOnAnyTeam) {
  const PathSystem s = path_system(6);
  const std::vector<char> constrained(s.A.rows, 0);
  BlockIncompleteCholesky ic(/*min_split_rows=*/1);
  ic.factor(s.A, constrained);
  // The lower half 0–5 ends with vertex 5, the one that touches the upper half: it is the
  // separator, and the halves 0–4 and 6–11 are eliminated towards it.
  EXPECT_EQ(ic.part_begin(), (std::array<int, 4>{0, 5, 11, 12}));
  EXPECT_EQ(ic.order(), (std::vector<int>{0, 1, 2, 3, 4, 11, 10, 9, 8, 7, 6, 5}));
  // Eliminated leaf by leaf towards the separator, a path has no fill: IC(0) is exact.
  std::vector<Vec3> z;
  const double dot = ic.apply(s.r, z);
  expect_exact_solve(s, z, dot);
  // Two and three threads (the halves side by side) give the same bits.
  for (int threads : {2, 3}) {
    BlockIncompleteCholesky team_ic(1);
    std::vector<Vec3> team_z;
    double team_dot = 0;
    run_team(threads, [&](auto& team) {
      team_ic.factor(team, s.A, constrained);
      const double d = team_ic.apply(team, s.r, team_z);
      if (team.thread() == 0) team_dot = d;
    });
    EXPECT_EQ(team_dot, dot) << threads;
    for (int i = 0; i < s.A.rows; ++i) EXPECT_EQ(team_z[i], z[i]) << threads << " " << i;
  }
}

// The block pattern of a res × res grid cloth, its vertices renumbered by `number` (identity
// blocks on the diagonal).
BlockCsrMatrix grid_pattern(int res, const std::vector<int>& number) {
  const ClothMesh mesh = make_grid_cloth({1, 1}, {res, res}, Vec3::Zero(), Quat::Identity());
  const int nv = static_cast<int>(mesh.vertices.size());
  std::vector<std::array<int, 3>> triangles = mesh.triangles;
  for (auto& t : triangles)
    for (int& v : t) v = number[v];
  const ClothTopology topology = ClothTopology::build(nv, triangles);
  BlockCsrMatrix A;
  A.set_pattern(nv, topology.neighbor_offsets, topology.neighbors);
  for (int i = 0; i < nv; ++i) A.blocks[A.diagonal[i]] = Mat3::Identity();
  return A;
}

TEST(BlockIncompleteCholesky, AShuffledNumberingIsNotSplit) {
  // Shuffled, the grid's lower half touches its upper half almost everywhere: no split.
  std::vector<int> number(41 * 41);
  std::iota(number.begin(), number.end(), 0);
  std::mt19937_64 rng(12);
  std::shuffle(number.begin(), number.end(), rng);
  const BlockCsrMatrix A = grid_pattern(40, number);
  BlockIncompleteCholesky ic;
  ic.factor(A, std::vector<char>(A.rows, 0));
  EXPECT_EQ(ic.part_begin(), (std::array<int, 4>{0, A.rows, A.rows, A.rows}));
}

TEST(BlockIncompleteCholesky, TheHalvesOfAClothGridShareNoBlock) {
  const int res = 40;  // 1,681 vertices: split by default
  std::vector<int> number((res + 1) * (res + 1));
  std::iota(number.begin(), number.end(), 0);
  const BlockCsrMatrix A = grid_pattern(res, number);
  const int nv = A.rows;
  ASSERT_GE(nv, kIcholMinSplitRows);
  BlockIncompleteCholesky ic;
  ic.factor(A, std::vector<char>(nv, 0));
  const std::array<int, 4>& parts = ic.part_begin();
  std::vector<int> part(nv, -1);
  for (int p = 0; p < 3; ++p)
    for (int k = parts[p]; k < parts[p + 1]; ++k) part[ic.order()[k]] = p;
  for (int v = 0; v < nv; ++v) ASSERT_GE(part[v], 0) << v;  // a permutation of the vertices
  for (int i = 0; i < nv; ++i)
    for (int k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      EXPECT_FALSE(part[i] + part[A.cols[k]] == 1) << i << " " << A.cols[k];  // 0 beside 1
  // Halves of nearly equal size; a separator of one grid line (the row being split runs on in
  // the row above it) and a vertex or two.
  EXPECT_GE(parts[1], nv * 2 / 5);
  EXPECT_GE(parts[2] - parts[1], nv * 2 / 5);
  EXPECT_GT(parts[3] - parts[2], 0);
  EXPECT_LE(parts[3] - parts[2], res + 3);
}

// A small hanging-cloth system at a random state: the blocks and right-hand side of
// ClothModel::assemble, the bending coefficient, and the dense system built independently from
// the element kernels, the masses and the whole bending Hessian.
struct ClothSystem {
  ClothTopology topology;
  ClothModel model;
  BlockCsrMatrix A;
  std::vector<Vec3> rhs;
  double c = 0;
  Eigen::MatrixXd dense;
};

ClothSystem cloth_system(int res, std::uint64_t seed) {
  ClothSystem s;
  ClothParams p = cloth_test::scene_params();
  p.bend_stiffness = 0.05;  // large enough that the bending term matters in the comparison
  const ClothMesh mesh = make_grid_cloth({1, 1}, {res, res}, Vec3(0, 0, 1), Quat::Identity());
  const int nv = static_cast<int>(mesh.vertices.size());
  s.topology = ClothTopology::build(nv, mesh.triangles);
  s.model.build(s.topology, mesh.vertices, p);
  s.A.set_pattern(nv, s.topology.neighbor_offsets, s.topology.neighbors);
  std::mt19937_64 rng(seed);
  std::vector<Vec3> x = mesh.vertices, v(nv);
  for (Vec3& xi : x) xi += 0.02 * random_vec(rng);
  for (Vec3& vi : v) vi = random_vec(rng);
  const double h = 1.0 / 240;
  s.model.assemble(x, v, h, Vec3(0, 0, -9.81), 1, s.A, s.rhs);
  s.c = s.model.bending_coefficient(h);
  s.dense = Eigen::MatrixXd::Zero(3 * nv, 3 * nv);
  for (int t = 0; t < static_cast<int>(mesh.triangles.size()); ++t) {
    const ClothModel::ElementSystem e = s.model.element_system(t, x, v, h);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        s.dense.block<3, 3>(3 * mesh.triangles[t][a], 3 * mesh.triangles[t][b]) += e.blocks[3 * a + b];
  }
  const ScalarCsrMatrix& Q = s.model.bending_hessian();
  for (int i = 0; i < nv; ++i) {
    s.dense.block<3, 3>(3 * i, 3 * i) += s.model.masses()[i] * Mat3::Identity();
    for (int k = Q.row_offsets[i]; k < Q.row_offsets[i + 1]; ++k)
      s.dense.block<3, 3>(3 * i, 3 * Q.cols[k]) += s.c * Q.values[k] * Mat3::Identity();
  }
  return s;
}

TEST(ClothModel, FoldedBendingPlusRemainderIsTheWholeSystem) {
  ClothSystem s = cloth_system(6, 7);
  const int nv = s.A.rows;
  const ScalarCsrMatrix& R = s.model.bending_remainder();
  Eigen::MatrixXd assembled = dense(s.A);
  for (int i = 0; i < nv; ++i) {
    for (int k = R.row_offsets[i]; k < R.row_offsets[i + 1]; ++k) {
      EXPECT_LT(s.A.find(i, R.cols[k]), 0) << "remainder entry on the blocks' pattern";
      assembled.block<3, 3>(3 * i, 3 * R.cols[k]) += s.c * R.values[k] * Mat3::Identity();
    }
  }
  EXPECT_GT(R.cols.size(), 0u);  // the 2-ring stencil reaches beyond the 1-ring
  // Each off-diagonal block is exactly its mirror's transpose.
  for (int i = 0; i < nv; ++i) {
    for (int k = s.A.row_offsets[i]; k < s.A.row_offsets[i + 1]; ++k) {
      if (s.A.cols[k] == i) continue;
      EXPECT_EQ(s.A.blocks[k], s.A.blocks[s.A.find(s.A.cols[k], i)].transpose());
    }
  }
  EXPECT_LT((assembled - s.dense).norm(), 1e-13 * s.dense.norm());
  // The solver's own product applies the same matrix.
  std::mt19937_64 rng(8);
  std::vector<Vec3> x(nv), y;
  for (Vec3& xi : x) xi = random_vec(rng);
  ImplicitSolver solver;
  solver.apply(s.A, R, s.c, x, y, 1);
  const Eigen::VectorXd expected = s.dense * flat(x);
  EXPECT_LT((flat(y) - expected).norm(), 1e-13 * expected.norm());
}

TEST(ImplicitSolver, MatchesADenseSolveWithConstrainedVertices) {
  ClothSystem s = cloth_system(7, 9);
  const int nv = s.A.rows;
  std::vector<char> constrained(nv, 0);
  constrained[0] = constrained[7] = constrained[30] = 1;
  std::mt19937_64 rng(10);
  std::vector<Vec3> z(nv, Vec3::Zero()), dv(nv);
  for (int i = 0; i < nv; ++i) {
    if (constrained[i]) z[i] = random_vec(rng);
    dv[i] = 0.1 * random_vec(rng);  // a warm start
  }
  const std::vector<Vec3> guess = dv;
  // A solve from the guess; on more than one thread with every loop forced parallel.
  auto solve = [&](int min_split_rows, int threads, std::vector<Vec3>& x, bool avx2 = true) {
    ClothParallelTuning& tuning = cloth_parallel_tuning();
    tuning.load_gate = threads == 1;
    tuning.min_items = threads == 1 ? kMinParallelItems : 1;
    ImplicitSolver solver(min_split_rows);
    solver.set_avx2(avx2);
    x = guess;
    const PcgResult result = solver.solve(s.A, s.model.bending_remainder(), s.c, s.rhs, constrained, z, 1e-12, 0.0, 1000, threads, x);
    tuning.load_gate = true;
    tuning.min_items = kMinParallelItems;
    return result;
  };
  const PcgResult res = solve(kIcholMinSplitRows, 1, dv);
  EXPECT_LT(res.relative_residual, 1e-12);
  // The same bits with the products forced onto 3 threads, chunk by chunk.
  std::vector<Vec3> dv3;
  EXPECT_EQ(solve(kIcholMinSplitRows, 3, dv3).iterations, res.iterations);
  for (int i = 0; i < nv; ++i) EXPECT_EQ(dv3[i], dv[i]) << i;
  // The same bits with the system product's scalar kernel: where the CPU has AVX2, the solves
  // above ran the AVX2 kernel (block3_avx2.h), which must sum in the scalar kernel's order.
  std::vector<Vec3> scalar_dv;
  EXPECT_EQ(solve(kIcholMinSplitRows, 1, scalar_dv, false).iterations, res.iterations);
  for (int i = 0; i < nv; ++i) EXPECT_EQ(scalar_dv[i], dv[i]) << i;
  if (!cpu_has_avx2()) std::printf("note: this CPU has no AVX2; only the scalar kernel ran\n");
  // Split for two threads (block_ichol.h), which small systems are not by default: another
  // preconditioner, the same solution, and the same bits on a team of 3.
  std::vector<Vec3> split_dv, split_dv3;
  const PcgResult split_res = solve(1, 1, split_dv);
  EXPECT_LT(split_res.relative_residual, 1e-12);
  EXPECT_EQ(solve(1, 3, split_dv3).iterations, split_res.iterations);
  for (int i = 0; i < nv; ++i) EXPECT_EQ(split_dv3[i], split_dv[i]) << i;
  // Dense: dv_C = z_C, S_FF dv_F = b_F − S_FC z_C.
  std::vector<int> free;
  for (int i = 0; i < nv; ++i)
    if (!constrained[i]) free.push_back(i);
  const int nf = static_cast<int>(free.size());
  const Eigen::VectorXd zc = flat(z);
  const Eigen::VectorXd b = flat(s.rhs) - s.dense * zc;  // zc is zero on free vertices
  Eigen::MatrixXd Sff(3 * nf, 3 * nf);
  Eigen::VectorXd bf(3 * nf);
  for (int a = 0; a < nf; ++a) {
    bf.segment<3>(3 * a) = b.segment<3>(3 * free[a]);
    for (int c = 0; c < nf; ++c) Sff.block<3, 3>(3 * a, 3 * c) = s.dense.block<3, 3>(3 * free[a], 3 * free[c]);
  }
  const Eigen::VectorXd expected = Sff.ldlt().solve(bf);
  for (int a = 0; a < nf; ++a) {
    EXPECT_LT((dv[free[a]] - expected.segment<3>(3 * a)).norm(), 1e-9 * expected.norm()) << free[a];
    EXPECT_LT((split_dv[free[a]] - expected.segment<3>(3 * a)).norm(), 1e-9 * expected.norm()) << free[a];
  }
  for (int i = 0; i < nv; ++i) {
    if (constrained[i]) {
      EXPECT_EQ(dv[i], z[i]);
    }
  }
}

}  // namespace
}  // namespace impetus
