#pragma once
// The impetus-bench suites, one per suite_<name>.cpp; bench_main.cpp registers each one whose
// file is present (CMakeLists.txt writes one IMPETUS_BENCH_SUITE(name) line per file into
// bench_suite_list.inc in the build folder). A suite fills the report
// and returns 0, or non-zero when something that should have run failed.
#include "tools/bench/bench.h"

namespace impetus::bench {

/// Every benchmark scene (scenes/bench) at 1 and 2 threads, with allocations per step.
int run_suite_scenes(const BenchOptions& options, BenchReport& report);
/// Paper 1: ellipsoid closest-approach iterations and cost (suite_ellipsoid.cpp).
int run_suite_ellipsoid(const BenchOptions& options, BenchReport& report);
/// Paper 5: block solver orderings, scaling, Eigen LU, accuracy vs sequential impulses.
int run_suite_solver(const BenchOptions& options, BenchReport& report);
/// Papers 2-3: continuous minimum distance methods, capsules and meshes (suite_mcd.cpp).
int run_suite_mcd(const BenchOptions& options, BenchReport& report);
/// Convex-vs-plane time of impact: extreme-vertex method against discrete stepping.
int run_suite_plane_toi(const BenchOptions& options, BenchReport& report);
/// Paper 4: cloth self-collision culling with normal-cone trees (suite_cloth.cpp).
int run_suite_cloth(const BenchOptions& options, BenchReport& report);
/// `impetus batch` runs/s: one process, --jobs 2 and 2 MPI ranks on a 32-run sweep.
int run_suite_batch(const BenchOptions& options, BenchReport& report);
/// Paper 2 §V: Phong (gradient-continuous) penetration distance between polyhedra.
int run_suite_phong(const BenchOptions& options, BenchReport& report);
/// Reliability: box_pile, ragdolls, cloth_box_stack for 100,000 steps each (suite_soak.cpp).
int run_suite_soak(const BenchOptions& options, BenchReport& report);

}  // namespace impetus::bench
