// Suite `solver`: paper 5's ordering comparison (A = Moore, B = bodies first, C = constraints
// first) on its three scenarios, scaling of ordering B with leaves-first constraint order on
// chains and binary trees, the same matrices through Eigen's sparse and dense LU, exact against
// iterative solves of growing islands (where each wins, and what the cost model picks), and
// stacking, pyramid and chain accuracy of the block solver against the sequential-impulse
// baseline (also given as many iterations as fit in the block solver's time).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseLU>

#include "dynamics/block_solver.h"
#include "dynamics/contact_constraint.h"
#include "engine/scene_loader.h"
#include "engine/world_builder.h"
#include "engine/world.h"
#include "tools/bench/suites.h"

namespace impetus::bench {
namespace {

// ---- synthetic articulated bodies, built directly as solver input -------------------------

struct Articulation {
  std::vector<RigidBodySim> bodies;
  std::vector<JointSim> joints;
  std::vector<ContactConstraint> contacts;
};

// A 0.1 m "link": 1 kg, a small inertia, at `x` moving with `v`.
int add_body(Articulation& a, const Vec3& x, const Vec3& v) {
  RigidBodySim b;
  b.x = x;
  b.v = v;
  b.dynamic = b.moving = true;
  b.inv_mass = 1.0;
  b.inertia_local = Vec3(0.004, 0.004, 0.002).asDiagonal();
  b.inv_inertia_local = b.inertia_local.inverse();
  b.refresh_world_inertia();
  a.bodies.push_back(b);
  return static_cast<int>(a.bodies.size()) - 1;
}

void add_ball_joint(Articulation& a, int child, int parent, const Vec3& anchor) {
  JointSim j;
  j.kind = JointKind::Ball;
  j.body_a = child;
  j.body_b = parent;
  j.anchor_a = a.bodies[child].q.conjugate() * (anchor - a.bodies[child].x);
  j.anchor_b = parent >= 0 ? Vec3(a.bodies[parent].q.conjugate() * (anchor - a.bodies[parent].x)) : anchor;
  a.joints.push_back(j);
}

// A tree of `n` bodies: body i hangs from body (i − 1) / branching (a chain for branching 1).
void add_tree(Articulation& a, int n, int branching, const Vec3& origin, const Vec3& v) {
  const int first = static_cast<int>(a.bodies.size());
  for (int i = 0; i < n; ++i) {
    int depth = 0;
    for (int k = i; k > 0; k = (k - 1) / branching) ++depth;
    Vec3 x = origin + Vec3(0.1 * (i % 7), 0.1 * (i % 5), -0.1 * depth);
    int id = add_body(a, x, v);
    if (i > 0) {
      int parent = first + (i - 1) / branching;
      add_ball_joint(a, id, parent, 0.5 * (x + a.bodies[parent].x));
    }
  }
}

// A ladder of 2 × n bodies with rungs: every rung closes a loop (non-tree topology).
void add_ladder(Articulation& a, int n, const Vec3& origin, const Vec3& v) {
  const int first = static_cast<int>(a.bodies.size());
  for (int i = 0; i < n; ++i) {
    for (int side = 0; side < 2; ++side) {
      int id = add_body(a, origin + Vec3(0.1 * side, 0, -0.1 * i), v);
      if (i > 0) add_ball_joint(a, id, id - 2, origin + Vec3(0.1 * side, 0, -0.1 * i + 0.05));
      if (side == 1) add_ball_joint(a, id, id - 1, origin + Vec3(0.05, 0, -0.1 * i));
    }
  }
  (void)first;
}

// One sticking contact between body a and body b (the two articulations hitting each other).
void add_contact(Articulation& art, int a, int b) {
  ContactConstraint c;
  c.body_a = a;
  c.body_b = b;
  c.normal = (art.bodies[b].x - art.bodies[a].x).normalized();
  c.tangent1 = any_orthogonal(c.normal);
  c.tangent2 = c.normal.cross(c.tangent1);
  Vec3 p = 0.5 * (art.bodies[a].x + art.bodies[b].x);
  c.anchor_a = p - art.bodies[a].x;
  c.anchor_b = p - art.bodies[b].x;
  c.friction = 1.0;
  c.restitution = 0.5;
  c.mode = static_cast<std::uint8_t>(ContactMode::Sticking);
  art.contacts.push_back(c);
}

// A lattice "pile" of side × side × layers unit spheres (0.1 m apart) resting on each other
// and on the ground: every body touches its lattice neighbours, the bottom layer the world.
// A contact island with many loops, the case where exact elimination fills in.
Articulation contact_pile(int side, int layers) {
  Articulation art;
  RigidBodySim ground;  // static: infinite mass, at rest
  art.bodies.push_back(ground);
  auto index = [&](int i, int j, int k) { return 1 + (k * side + j) * side + i; };
  for (int k = 0; k < layers; ++k)
    for (int j = 0; j < side; ++j)
      for (int i = 0; i < side; ++i) add_body(art, Vec3(0.1 * i, 0.1 * j, 0.05 + 0.1 * k), Vec3(0, 0, -0.2));
  auto touch = [&](int a, int b, const Vec3& normal, const Vec3& point) {
    ContactConstraint c;
    c.body_a = a;
    c.body_b = b;
    c.normal = normal;
    c.tangent1 = any_orthogonal(c.normal);
    c.tangent2 = c.normal.cross(c.tangent1);
    c.anchor_a = point - art.bodies[a].x;
    c.anchor_b = point - art.bodies[b].x;
    c.friction = 0.5;
    c.mode = static_cast<std::uint8_t>(ContactMode::Sticking);
    art.contacts.push_back(c);
  };
  for (int k = 0; k < layers; ++k)
    for (int j = 0; j < side; ++j)
      for (int i = 0; i < side; ++i) {
        const int b = index(i, j, k);
        const Vec3 x = art.bodies[b].x;
        if (i > 0) touch(index(i - 1, j, k), b, Vec3::UnitX(), x - Vec3(0.05, 0, 0));
        if (j > 0) touch(index(i, j - 1, k), b, Vec3::UnitY(), x - Vec3(0, 0.05, 0));
        touch(k > 0 ? index(i, j, k - 1) : 0, b, Vec3::UnitZ(), x - Vec3(0, 0, 0.05));
      }
  return art;
}

Island whole_island(const Articulation& a) {
  Island island;
  for (int i = 0; i < static_cast<int>(a.bodies.size()); ++i) {
    if (a.bodies[i].dynamic) island.bodies.push_back(i);
  }
  for (int i = 0; i < static_cast<int>(a.contacts.size()); ++i) island.contacts.push_back(i);
  for (int i = 0; i < static_cast<int>(a.joints.size()); ++i) island.joints.push_back(i);
  return island;
}

// Median µs of one exact block solve (assembly, elimination, active set) with an ordering: the
// first solve of the island's structure (orderings and elimination made afresh), or with
// `replayed` the solve of a step that repeats the last one's structure (the elimination replays
// its recorded program, dynamics/block_sparse_lu.h).
double time_solve(const Articulation& art, BlockOrdering ordering, int repeats,
                  BlockMethod method = BlockMethod::Exact, IslandSolveInfo* last = nullptr,
                  bool replayed = false) {
  BlockSolverSettings settings;
  settings.ordering = ordering;
  settings.method = method;
  const Island island = whole_island(art);
  std::vector<double> samples;
  IslandBlockSolver solver;
  for (int r = replayed ? -1 : 0; r < repeats; ++r) {  // replayed: an untimed first solve records
    Articulation copy = art;
    for (ContactConstraint& c : copy.contacts)
      prepare_contact_geometry(c, copy.bodies[c.body_a], copy.bodies[c.body_b], 1e-3, 0.5);
    if (!replayed) solver.forget_structure();
    auto start = std::chrono::steady_clock::now();
    IslandSolveInfo info = solver.solve_velocities(island, copy.bodies, copy.contacts, copy.joints, 1e-3, settings);
    if (last) *last = info;
    if (r < 0) continue;
    samples.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  return median(samples);
}

Articulation two_colliding(const std::function<void(Articulation&, const Vec3&, const Vec3&)>& make) {
  Articulation art;
  make(art, Vec3(0, 0, 0), Vec3(1, 0, 0));
  const int last_of_first = static_cast<int>(art.bodies.size()) - 1;
  make(art, Vec3(0.15, 0, 0), Vec3(-1, 0, 0));
  add_contact(art, 0, last_of_first + 1);
  return art;
}

// ---- Eigen LU on the same assembled matrix -------------------------------------------------

void assembled_matrix(const Articulation& art, Eigen::SparseMatrix<double>& m, Eigen::VectorXd& b) {
  BlockSolverSettings settings;
  settings.method = BlockMethod::Exact;
  Articulation copy = art;
  IslandBlockSolver solver;
  solver.solve_velocities(whole_island(copy), copy.bodies, copy.contacts, copy.joints, 1e-3, settings);
  copy.bodies = art.bodies;  // the matrix at the start velocities
  BlockSparseLu lu;
  std::vector<Vec3> rhs;
  solver.assemble(copy.bodies, lu, rhs);
  const int n = lu.size();
  std::vector<Eigen::Triplet<double>> triplets;
  lu.for_each_block([&](int r, int c, const Mat3& a) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        if (a(i, j) != 0) triplets.emplace_back(3 * r + i, 3 * c + j, a(i, j));
  });
  m.resize(3 * n, 3 * n);
  m.setFromTriplets(triplets.begin(), triplets.end());
  b.resize(3 * n);
  for (int i = 0; i < n; ++i) b.segment<3>(3 * i) = rhs[i];
}

template <class Fn>
double median_us(int repeats, Fn&& fn) {
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    fn();
    samples.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  return median(samples);
}

// ---- accuracy on the shared scenes ---------------------------------------------------------

struct SceneRun {
  double top_drift_mm = -1;
  double joint_error_max = 0;
  double ms_per_step = 0;
};

SceneRun run_scene(SceneDef scene, SolverType solver, long long steps_cap, int si_iterations);

SceneRun run_scene_file(const std::string& path, SolverType solver, long long steps_cap,
                        int si_iterations = 0) {
  SceneLoadResult loaded = load_scene_file(path);
  if (!loaded.ok()) return SceneRun{};
  return run_scene(*loaded.scene, solver, steps_cap, si_iterations);
}

// A 2-D pyramid of 0.5 m cubes on a plane, `base` boxes at the bottom, touching.
SceneDef pyramid_scene(int base) {
  SceneDef scene;
  scene.world.dt = 1.0 / 240.0;
  scene.steps = 960;
  BodyDef ground;
  ground.name = "ground";
  ground.motion = MotionType::Static;
  ground.shape = Shape::plane(Vec3::UnitZ(), 0);
  scene.bodies.push_back(ground);
  for (int row = 0; row < base; ++row) {
    for (int i = 0; i < base - row; ++i) {
      BodyDef box;
      box.name = "box_" + std::to_string(row) + "_" + std::to_string(i);
      box.shape = Shape::box(Vec3(0.25, 0.25, 0.25));
      box.position = Vec3(0.5 * i + 0.25 * row - 0.25 * (base - 1), 0, 0.25 + 0.5 * row);
      scene.bodies.push_back(box);
    }
  }
  return scene;
}

SceneRun run_scene(SceneDef scene, SolverType solver, long long steps_cap, int si_iterations) {
  SceneRun out;
  scene.world.solver = solver;
  if (si_iterations > 0) scene.world.solver_iterations = si_iterations;
  scene.world.threads = 1;
  const std::unique_ptr<World> owned = build_world(scene);
  World& world = *owned;
  // The top box: the highest dynamic body at the start.
  int top = -1;
  for (int i = 0; i < world.body_count(); ++i) {
    if (world.body_motion(world.body_id(i)) != MotionType::Dynamic) continue;
    if (top < 0 || world.body_state(world.body_id(i)).position.z() >
                       world.body_state(world.body_id(top)).position.z())
      top = i;
  }
  const Vec3 start = world.body_state(world.body_id(top)).position;
  const long long steps = steps_cap > 0 ? std::min(steps_cap, scene.steps) : scene.steps;
  double drift = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (long long s = 0; s < steps; ++s) {
    world.step();
    drift = std::max(drift, (world.body_state(world.body_id(top)).position - start).norm());
  }
  out.ms_per_step = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
                    static_cast<double>(std::max<long long>(steps, 1));
  out.top_drift_mm = 1e3 * drift;
  out.joint_error_max = world.stats().joint_error_max;
  return out;
}

}  // namespace

int run_suite_solver(const BenchOptions& options, BenchReport& report) {
  const int repeats = options.quick ? 3 : 15;
  // Paper 5's scenarios: two simple articulated bodies, two trees of 21 bodies, two ladders.
  struct Scenario {
    const char* name;
    std::function<void(Articulation&, const Vec3&, const Vec3&)> make;
  };
  const Scenario scenarios[] = {
      {"simple", [](Articulation& a, const Vec3& o, const Vec3& v) { add_tree(a, 3, 1, o, v); }},
      {"tree20", [](Articulation& a, const Vec3& o, const Vec3& v) { add_tree(a, 21, 4, o, v); }},
      {"loops", [](Articulation& a, const Vec3& o, const Vec3& v) { add_ladder(a, 6, o, v); }},
  };
  for (const Scenario& s : scenarios) {
    Articulation art = two_colliding(s.make);
    for (auto [ordering, label] : {std::pair{BlockOrdering::A, "A"}, std::pair{BlockOrdering::B, "B"},
                                   std::pair{BlockOrdering::C, "C"}}) {
      report.figures[std::string("paper.") + s.name + "." + label + ".us"] = time_solve(art, ordering, repeats);
    }
  }
  report.notes.push_back("paper 5 (s): simple A 0.03 / B <0.01 / C <0.01; tree20 A 0.6 / B 0.01 / C 0.05; "
                         "loops A 0.15 / B <0.01 / C 0.02");

  // Scaling of ordering B (leaves first) on chains and binary trees.
  const std::vector<int> sizes = options.quick ? std::vector<int>{10, 100} : std::vector<int>{10, 100, 1000, 10000};
  for (int n : sizes) {
    Articulation chain;
    add_tree(chain, n, 1, Vec3::Zero(), Vec3(0.3, 0, 0));
    add_ball_joint(chain, 0, -1, chain.bodies[0].x + Vec3(0, 0, 0.05));
    const int reps = n >= 10000 ? 3 : repeats;
    report.figures["chain_" + std::to_string(n) + ".B.us"] = time_solve(chain, BlockOrdering::B, reps);
    report.figures["chain_" + std::to_string(n) + ".B.replayed.us"] =
        time_solve(chain, BlockOrdering::B, reps, BlockMethod::Exact, nullptr, true);
    Articulation tree;
    add_tree(tree, n, 2, Vec3::Zero(), Vec3(0.3, 0, 0));
    add_ball_joint(tree, 0, -1, tree.bodies[0].x + Vec3(0, 0, 0.05));
    report.figures["tree_" + std::to_string(n) + ".B.us"] = time_solve(tree, BlockOrdering::B, reps);
    report.figures["tree_" + std::to_string(n) + ".B.replayed.us"] =
        time_solve(tree, BlockOrdering::B, reps, BlockMethod::Exact, nullptr, true);
  }

  // Eigen's general LUs on the same KKT matrix of the chain.
  const int lu_links = options.quick ? 100 : 1000;
  const std::string lu_name = "chain_" + std::to_string(lu_links);
  Articulation chain;
  add_tree(chain, lu_links, 1, Vec3::Zero(), Vec3(0.3, 0, 0));
  add_ball_joint(chain, 0, -1, chain.bodies[0].x + Vec3(0, 0, 0.05));
  Eigen::SparseMatrix<double> sparse;
  Eigen::VectorXd rhs;
  assembled_matrix(chain, sparse, rhs);
  report.figures[lu_name + ".sparse_lu.us"] = median_us(options.quick ? 3 : 5, [&] {
    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
    lu.compute(sparse);
    Eigen::VectorXd x = lu.solve(rhs);
    (void)x;
  });
  Eigen::MatrixXd dense(sparse);
  report.figures[lu_name + ".dense_lu.us"] = median_us(1, [&] {
    Eigen::VectorXd x = dense.partialPivLu().solve(rhs);
    (void)x;
  });
  report.figures[lu_name + ".matrix_rows"] = static_cast<double>(dense.rows());

  // Exact elimination against the projected iterative method on one island of growing size:
  // contact lattices (loops: fill-in) and chains (a tree: no fill-in), and what the per-island
  // cost model picks (1 = exact). Both solve the same blocks from the same start.
  const std::vector<int> pile_sides = options.quick ? std::vector<int>{2, 3} : std::vector<int>{2, 3, 4, 6, 8};
  for (int side : pile_sides) {
    Articulation pile = contact_pile(side, side);
    const std::string name = "pile_" + std::to_string(side * side * side);
    IslandSolveInfo info;
    report.figures[name + ".exact.us"] = time_solve(pile, BlockOrdering::B, repeats, BlockMethod::Exact);
    report.figures[name + ".iterative.us"] = time_solve(pile, BlockOrdering::B, repeats, BlockMethod::Iterative);
    time_solve(pile, BlockOrdering::B, 1, BlockMethod::Auto, &info);
    report.figures[name + ".auto_exact"] = info.exact ? 1 : 0;
    report.figures[name + ".estimated_exact_ops"] = static_cast<double>(info.estimated_exact_ops);
    report.figures[name + ".iterative_ops"] = static_cast<double>(info.iterative_ops);
    report.figures[name + ".contacts"] = static_cast<double>(pile.contacts.size());
  }
  for (int n : options.quick ? std::vector<int>{10, 100} : std::vector<int>{10, 100, 1000}) {
    Articulation chain;
    add_tree(chain, n, 1, Vec3::Zero(), Vec3(0.3, 0, 0));
    add_ball_joint(chain, 0, -1, chain.bodies[0].x + Vec3(0, 0, 0.05));
    const std::string name = "chain_" + std::to_string(n);
    IslandSolveInfo info;
    report.figures[name + ".exact.us"] = time_solve(chain, BlockOrdering::B, repeats, BlockMethod::Exact);
    report.figures[name + ".iterative.us"] = time_solve(chain, BlockOrdering::B, repeats, BlockMethod::Iterative);
    time_solve(chain, BlockOrdering::B, 1, BlockMethod::Auto, &info);
    report.figures[name + ".auto_exact"] = info.exact ? 1 : 0;
  }

  // Accuracy against the sequential-impulse baseline on the shared scenes.
  const std::string scenes = options.scenes_dir + "/";
  const long long cap = options.quick ? 60 : 0;
  if (std::filesystem::exists(scenes + "stack_boxes_10.json")) {
    SceneRun block = run_scene_file(scenes + "stack_boxes_10.json", SolverType::Block, cap);
    SceneRun si = run_scene_file(scenes + "stack_boxes_10.json", SolverType::SequentialImpulse, cap);
    report.figures["stack10.drift_mm.block"] = block.top_drift_mm;
    report.figures["stack10.drift_mm.sequential_impulse"] = si.top_drift_mm;
    report.figures["stack10.ms_per_step.block"] = block.ms_per_step;
    report.figures["stack10.ms_per_step.sequential_impulse"] = si.ms_per_step;
    // The baseline again with as many iterations as fit in the block solver's time per step.
    const int equal_iterations = std::max(20, static_cast<int>(std::lround(20 * block.ms_per_step / std::max(si.ms_per_step, 1e-9))));
    SceneRun si_equal = run_scene_file(scenes + "stack_boxes_10.json", SolverType::SequentialImpulse, cap, equal_iterations);
    report.figures["stack10.drift_mm.sequential_impulse_equal_time"] = si_equal.top_drift_mm;
    report.figures["stack10.sequential_impulse_equal_time.iterations"] = equal_iterations;
    report.figures["stack10.ms_per_step.sequential_impulse_equal_time"] = si_equal.ms_per_step;
    // The 15-box pyramid (base 5), and a 36-box one (base 8) whose island is too big for
    // the always-exact rule, so the block solver goes iterative there.
    for (const auto& [prefix, base] : {std::pair<std::string, int>{"pyramid", options.quick ? 3 : 5},
                                       std::pair<std::string, int>{"pyramid36", options.quick ? 4 : 8}}) {
      const SceneDef pyramid = pyramid_scene(base);
      SceneRun pyr_block = run_scene(pyramid, SolverType::Block, cap, 0);
      SceneRun pyr_si = run_scene(pyramid, SolverType::SequentialImpulse, cap, 0);
      const int pyr_iterations = std::max(20, static_cast<int>(std::lround(20 * pyr_block.ms_per_step / std::max(pyr_si.ms_per_step, 1e-9))));
      SceneRun pyr_si_equal = run_scene(pyramid, SolverType::SequentialImpulse, cap, pyr_iterations);
      report.figures[prefix + ".boxes"] = static_cast<double>(pyramid.bodies.size() - 1);
      report.figures[prefix + ".drift_mm.block"] = pyr_block.top_drift_mm;
      report.figures[prefix + ".drift_mm.sequential_impulse"] = pyr_si.top_drift_mm;
      report.figures[prefix + ".drift_mm.sequential_impulse_equal_time"] = pyr_si_equal.top_drift_mm;
      report.figures[prefix + ".sequential_impulse_equal_time.iterations"] = pyr_iterations;
      report.figures[prefix + ".ms_per_step.block"] = pyr_block.ms_per_step;
      report.figures[prefix + ".ms_per_step.sequential_impulse"] = pyr_si.ms_per_step;
    }
    SceneRun chain_block = run_scene_file(scenes + "capsule_chain_50.json", SolverType::Block, cap);
    SceneRun chain_si = run_scene_file(scenes + "capsule_chain_50.json", SolverType::SequentialImpulse, cap);
    report.figures["chain50.joint_error_max"] = chain_block.joint_error_max;
    report.figures["chain50.joint_error_max.sequential_impulse"] = chain_si.joint_error_max;
    report.figures["chain50.ms_per_step.block"] = chain_block.ms_per_step;
    report.figures["chain50.ms_per_step.sequential_impulse"] = chain_si.ms_per_step;
  } else {
    report.skipped.push_back("stack10/chain50: " + scenes + " not found");
  }
  return 0;
}

}  // namespace impetus::bench
