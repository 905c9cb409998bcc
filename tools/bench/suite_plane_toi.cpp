// impetus-bench plane_toi: paper 3's experiment (Kim 2004, Tables 1–2). A polyhedron flies for
// 3 s between two parallel planes (a floor z = 0 and a ceiling z = 20, both solid outside the
// slab), starting with v = (10, 5, 15) and ω = (−1.789, 1.123, −0.789) as in the paper, and
// bounces (frictionless impulse, restitution 0.9) at every contact. The whole 3 s is timed as a
// sequence of TOI queries:
//  - extreme_vertex: one query per plane over [t, 3] with the diagram built once per hull
//    (plane_toi), repeated after each bounce — the cost does not depend on any step size;
//  - discrete_dt<dt>: one query per plane and step [t, t + dt] (plane_toi_discrete with the
//    incremental extreme-vertex walk), for dt = 0.005 and 0.001.
// After a bounce every method restarts at toi + 1e-6 s, so equal TOIs give equal trajectories
// and toi_abs_diff_max compares the methods' TOI sequences directly (Table 1).
// Polyhedra: cube (6 faces), octahedron (8), poly50 and poly200 (hulls of 27 and 102 fixed-seed
// random points on a sphere: 50 and 200 triangular faces).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "collision/shape/convex_hull.h"
#include "collision/continuous/extreme_vertex_diagram.h"
#include "collision/continuous/plane_toi.h"
#include "collision/continuous/rigid_motion.h"
#include "tools/bench/bench.h"

namespace impetus::bench {
namespace {

constexpr double kDuration = 3.0;
constexpr double kCeiling = 20.0;
constexpr double kRestartGap = 1e-6;
constexpr double kRestitution = 0.9;

struct Plane {
  Vec3 normal;   // points out of the solid half-space normal·x <= offset, into the slab
  double offset;
};

const Plane kPlanes[2] = {{Vec3(0, 0, 1), 0.0}, {Vec3(0, 0, -1), -kCeiling}};

struct Polyhedron {
  std::string name;
  ConvexHull hull;
  ExtremeVertexDiagram diagram;
  double inertia = 1;  // isotropic approximation (2/5 m r², m = 1) for the bounce response
};

enum class Method { ExtremeVertex, ExtremeVertexPure, Discrete };

struct Run {
  std::vector<double> tois;
  long long iterations = 0;
};

// Frictionless impulse at the touching vertex, pushing along the plane normal.
RigidMotion bounce(const RigidMotion& m, double t, const Vec3& vertex_local, const Vec3& n,
                   double inertia) {
  const Pose pose = m.at(t);
  const Vec3 r = pose.rotate(vertex_local);
  const Vec3 vp = m.linear_velocity + m.angular_velocity.cross(r);
  const double vn = vp.dot(n);
  RigidMotion next = m;
  if (vn < 0) {
    const Vec3 rn = r.cross(n);
    const double j = -(1 + kRestitution) * vn / (1.0 + rn.squaredNorm() / inertia);
    next.linear_velocity += j * n;
    next.angular_velocity += rn * (j / inertia);
  }
  // Same pose at t under the new velocities: x0' = x(t) − v' t, R0' = exp(−[ω'] t) R(t).
  next.pose0.position = pose.position - next.linear_velocity * t;
  next.pose0.orientation =
      quat_from_rotation_vector(Vec3(-next.angular_velocity * t)) * pose.orientation;
  return next;
}

RigidMotion initial_motion() {
  RigidMotion m;
  m.pose0.position = Vec3(0, 0, 5);
  m.pose0.orientation = Quat(Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()));
  m.linear_velocity = Vec3(10.0, 5.0, 15.0);
  m.angular_velocity = Vec3(-1.789, 1.123, -0.789);
  return m;
}

Run simulate(const Polyhedron& p, Method method, double dt) {
  Run run;
  RigidMotion motion = initial_motion();
  PlaneToiOptions pure;
  pure.motion_bound_pruning = false;
  double t = 0;
  while (t < kDuration) {
    const double end = method == Method::Discrete ? std::min(kDuration, t + dt) : kDuration;
    std::optional<double> first;
    int vertex = -1, plane = -1;
    for (int k = 0; k < 2; ++k) {
      PlaneToiResult r;
      if (method == Method::Discrete) {
        r = plane_toi_discrete(p.diagram, motion, kPlanes[k].normal, kPlanes[k].offset, t, end, dt);
      } else {
        r = plane_toi(p.diagram, motion, kPlanes[k].normal, kPlanes[k].offset, t, end,
                      method == Method::ExtremeVertexPure ? pure : PlaneToiOptions{});
      }
      run.iterations += r.iterations;
      if (r.toi && (!first || *r.toi < *first)) {
        first = r.toi;
        vertex = r.vertex;
        plane = k;
      }
    }
    if (!first) {
      if (method != Method::Discrete) break;
      t = end;
      continue;
    }
    run.tois.push_back(*first);
    motion = bounce(motion, *first, p.hull.vertices[vertex], kPlanes[plane].normal, p.inertia);
    t = *first + kRestartGap;
  }
  return run;
}

double milliseconds(const Polyhedron& p, Method method, double dt, int repeats) {
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const Run run = simulate(p, method, dt);
    const auto stop = std::chrono::steady_clock::now();
    if (run.tois.empty()) return -1;
    times.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  return median(times);
}

Polyhedron make_polyhedron(const std::string& name, const std::vector<Vec3>& points) {
  Polyhedron p;
  p.name = name;
  std::string error;
  std::optional<ConvexHull> hull = build_convex_hull(points, &error);
  if (hull) p.hull = std::move(*hull);
  p.diagram = build_extreme_vertex_diagram(p.hull);
  p.inertia = 0.4 * p.diagram.max_vertex_norm * p.diagram.max_vertex_norm;
  return p;
}

std::vector<Polyhedron> polyhedra() {
  std::vector<Polyhedron> list;
  Polyhedron cube;
  cube.name = "cube";
  cube.hull = box_hull(Vec3(1, 1, 1));
  cube.diagram = build_extreme_vertex_diagram(cube.hull);
  cube.inertia = 2.0 / 3.0;  // (m/12)(2² + 2²) for the unit-mass cube of edge 2
  list.push_back(std::move(cube));
  const double s = 1.2;
  list.push_back(make_polyhedron("octahedron", {{s, 0, 0}, {-s, 0, 0}, {0, s, 0}, {0, -s, 0},
                                                {0, 0, s}, {0, 0, -s}}));
  std::mt19937 rng(20040101);
  std::normal_distribution<double> g(0.0, 1.0);
  for (const auto& [name, count] : {std::pair<std::string, int>{"poly50", 27}, {"poly200", 102}}) {
    std::vector<Vec3> points;
    for (int i = 0; i < count; ++i) points.push_back(Vec3(g(rng), g(rng), g(rng)).normalized() * s);
    list.push_back(make_polyhedron(name, points));
  }
  return list;
}

double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty()) return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

}  // namespace

int run_suite_plane_toi(const BenchOptions& options, BenchReport& report) {
  const int repeats_fast = options.quick ? 5 : 101;
  const int repeats_slow = options.quick ? 3 : 21;
  int status = 0;
  for (const Polyhedron& p : polyhedra()) {
    if (p.hull.vertices.empty()) {
      report.skipped.push_back(p.name + ": hull construction failed");
      status = 1;
      continue;
    }
    const std::string key = p.name + ".";
    const Run ev = simulate(p, Method::ExtremeVertex, 0);
    const Run pure = simulate(p, Method::ExtremeVertexPure, 0);
    const Run d5 = simulate(p, Method::Discrete, 0.005);
    const Run d1 = simulate(p, Method::Discrete, 0.001);
    report.figures[key + "faces"] = static_cast<double>(p.hull.faces.size());
    report.figures[key + "vertices"] = static_cast<double>(p.hull.vertices.size());
    report.figures[key + "impacts"] = static_cast<double>(ev.tois.size());
    if (!ev.tois.empty()) report.figures[key + "first_toi"] = ev.tois.front();
    report.figures[key + "extreme_vertex.ms"] = milliseconds(p, Method::ExtremeVertex, 0, repeats_fast);
    report.figures[key + "extreme_vertex_pure.ms"] =
        milliseconds(p, Method::ExtremeVertexPure, 0, repeats_fast);
    report.figures[key + "discrete_dt0.005.ms"] = milliseconds(p, Method::Discrete, 0.005, repeats_slow);
    report.figures[key + "discrete_dt0.001.ms"] = milliseconds(p, Method::Discrete, 0.001, repeats_slow);
    report.figures[key + "extreme_vertex.iterations"] = static_cast<double>(ev.iterations);
    report.figures[key + "discrete_dt0.001.iterations"] = static_cast<double>(d1.iterations);
    const double diff = std::max({max_abs_difference(ev.tois, d5.tois),
                                  max_abs_difference(ev.tois, d1.tois),
                                  max_abs_difference(ev.tois, pure.tois)});
    report.figures[key + "toi_abs_diff_max"] = diff;
    if (!(diff <= 1e-9)) {
      report.notes.push_back(p.name + ": the methods' TOI sequences differ by " + std::to_string(diff));
      status = 1;
    }
  }
  report.notes.push_back(
      "3 s of motion between planes z = 0 and z = 20, v0 = (10, 5, 15), w0 = (-1.789, 1.123, "
      "-0.789), restitution 0.9; times are medians of whole runs (ms); extreme_vertex_pure = no "
      "motion-bound pruning (the paper's method as published)");
  return status;
}

}  // namespace impetus::bench
