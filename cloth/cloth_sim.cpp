#include "cloth/cloth_sim.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "cloth/block_sparse.h"
#include "cloth/cloth_model.h"
#include "cloth/cloth_rigid.h"
#include "cloth/cloth_topology.h"
#include "cloth/implicit_solver.h"
#include "cloth/self_collision.h"
#include "cloth/strain_limit.h"
#include "cloth/cloth_parallel.h"

namespace impetus {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

const char* cone_culling_name(ConeCulling mode) {
  switch (mode) {
    case ConeCulling::None: return "none";
    case ConeCulling::ProvotTang3: return "provot_tang3";
    case ConeCulling::Tight5pt: return "tight_5pt";
  }
  return "none";
}

struct ClothSim::Impl {
  ClothParams params;
  std::vector<std::array<int, 3>> triangles;
  std::vector<Vec3> rest;
  ClothTopology topology;
  ClothModel model;
  BlockCsrMatrix A;
  ImplicitSolver solver;
  SelfCollision self;
  StrainLimiter strain;
  ClothRigidWorkspace rigid_work;
  std::vector<Vec3> u_before_limit;
  std::vector<char> limit_moved;  // per vertex: the second strain limit changed its u
  double max_strain_seen = 0;
  std::vector<Vec3> x, v, dv, rhs, u, z, pin_target, Adv;
  std::vector<double> inv_mass;
  std::vector<char> constrained;
  std::vector<int> attached_index;  // per vertex: index into params.attached or -1
  double total_mass = 0;
  ClothStats stats;

  // Tethered contacts (issue 16): a dynamic body that pushes a cloth vertex beyond its tether to
  // a pin is held by that pin through the sheet, which the strain limit makes (almost)
  // inextensible: the body's contact point stops moving along the tether (an inelastic impulse,
  // applied in vertex order, so the body's velocity seen by the next vertex includes it).
  // Without it the body loses momentum only through the few vertex masses it touches and drags
  // the sheet far beyond its limit.
  std::vector<Vec3> body_v, body_w;
  void hold_bodies_by_tethers(std::span<const RigidCollider> colliders, std::vector<RigidImpulse>& reactions) {
    const int nc = static_cast<int>(colliders.size());
    body_v.resize(nc);
    body_w.resize(nc);
    for (int c = 0; c < nc; ++c) {
      body_v[c] = colliders[c].linear_velocity;
      body_w[c] = colliders[c].angular_velocity;
    }
    // The cloth's reactions so far this step.
    for (const RigidImpulse& r : reactions) {
      for (int c = 0; c < nc; ++c) {
        const RigidCollider& col = colliders[c];
        if (col.body != r.body || !(col.inv_mass > 0)) continue;
        body_v[c] += col.inv_mass * r.impulse;
        body_w[c] += col.inv_inertia_world * (r.point - col.center_of_mass).cross(r.impulse);
        break;
      }
    }
    constexpr int kMaxTethers = 8;
    Vec3 dirs[kMaxTethers];
    for (int i = 0; i < static_cast<int>(x.size()); ++i) {
      const int c = rigid_work.contact_collider[i];
      if (c < 0 || !(inv_mass[i] > 0)) continue;
      const RigidCollider& col = colliders[c];
      if (!(col.inv_mass > 0)) continue;
      const int nd = strain.violated_tethers(i, x, u, params.strain_limit, dirs, kMaxTethers);
      const Vec3& p = rigid_work.contact_point[i];
      for (int k = 0; k < nd; ++k) {
        const Vec3 vp = body_v[c] + body_w[c].cross(p - col.center_of_mass);
        const double vd = vp.dot(dirs[k]);
        const double kd = col.inverse_mass_along(p, dirs[k]);
        if (!(vd > 0) || !(kd > 0)) continue;
        const Vec3 J = (-vd / kd) * dirs[k];
        body_v[c] += col.inv_mass * J;
        body_w[c] += col.inv_inertia_world * (p - col.center_of_mass).cross(J);
        reactions.push_back(RigidImpulse{col.body, p, J});
      }
    }
  }

  // The strain limiter's tethers hang on every vertex of the sheet that does not move freely
  // (not on a stray vertex outside every triangle).
  void build_strain_limiter() {
    std::vector<int> anchors;
    for (int i = 0; i < static_cast<int>(constrained.size()); ++i)
      if (constrained[i] && model.masses()[i] > 0) anchors.push_back(i);
    strain.build(topology.edges, rest, anchors);
  }
};

ClothSim::ClothSim(const ClothMesh& mesh, const ClothParams& params) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  const int nv = static_cast<int>(mesh.vertices.size());
  for (const auto& tri : mesh.triangles) {
    for (int v : tri) {
      if (v < 0 || v >= nv) throw std::invalid_argument("cloth triangle refers to a missing vertex");
    }
  }
  s.params = params;
  s.triangles = mesh.triangles;
  s.rest = mesh.vertices;
  s.topology = ClothTopology::build(nv, mesh.triangles);
  s.model.build(s.topology, s.rest, params);
  s.A.set_pattern(nv, s.topology.neighbor_offsets, s.topology.neighbors);
  s.self.build(s.topology, s.rest);
  s.x = s.rest;
  s.v.assign(nv, Vec3::Zero());
  s.dv.assign(nv, Vec3::Zero());
  s.z.assign(nv, Vec3::Zero());
  s.pin_target = s.rest;
  s.constrained.assign(nv, 0);
  s.attached_index.assign(nv, -1);
  for (int p : params.pinned) {
    if (p < 0 || p >= nv) throw std::invalid_argument("pinned vertex " + std::to_string(p) + " out of range");
    s.constrained[p] = 1;
  }
  for (size_t k = 0; k < params.attached.size(); ++k) {
    const int p = params.attached[k].vertex;
    if (p < 0 || p >= nv) throw std::invalid_argument("attached vertex " + std::to_string(p) + " out of range");
    s.constrained[p] = 1;
    s.attached_index[p] = static_cast<int>(k);
  }
  const std::vector<double>& m = s.model.masses();
  s.inv_mass.assign(nv, 0.0);

  for (int i = 0; i < nv; ++i) {
    if (!(m[i] > 0)) s.constrained[i] = 1;  // a vertex in no triangle has no mass: keep it fixed
    s.inv_mass[i] = s.constrained[i] ? 0.0 : 1.0 / m[i];
    s.total_mass += m[i];
  }
  s.build_strain_limiter();
}

ClothSim::~ClothSim() = default;
ClothSim::ClothSim(ClothSim&&) noexcept = default;
ClothSim& ClothSim::operator=(ClothSim&&) noexcept = default;

void ClothSim::step(double h, const Vec3& gravity, std::span<const RigidCollider> colliders,
                    std::vector<RigidImpulse>& reactions) {
  Impl& s = *impl_;
  const int nv = static_cast<int>(s.x.size());
  const int threads = s.params.threads;
  s.stats = ClothStats{};
  if (nv == 0) return;

  // Prescribed velocity changes of constrained vertices: pinned ones return to their pin,
  // attached ones land on their body point at the end of the step.
  const std::vector<double>& mass = s.model.masses();
  for (int i = 0; i < nv; ++i) {
    if (!s.constrained[i]) {
      s.z[i].setZero();
      continue;
    }
    Vec3 target = s.pin_target[i];
    if (s.attached_index[i] >= 0) {
      const ClothAttachment& at = s.params.attached[s.attached_index[i]];
      target = s.x[i];
      for (const RigidCollider& c : colliders) {
        if (c.body == at.body) {
          target = c.pose.apply(at.local_point);
          break;
        }
      }
    } else if (!(mass[i] > 0)) {
      target = s.x[i];
    }
    s.z[i] = (target - s.x[i]) / h - s.v[i];
  }

  Clock::time_point start = Clock::now();
  s.model.assemble(s.x, s.v, h, gravity, threads, s.A, s.rhs);
  s.stats.seconds_internal_forces = seconds_since(start);

  start = Clock::now();
  // Warm start from the last step's Δv (constrained entries are replaced by z).
  // Near equilibrium the right-hand side (forces) almost vanishes and a purely relative test
  // would chase round-off; the floor is the residual of a free fall solved to the same
  // relative tolerance: an RMS velocity error of tolerance·h·|g|.
  const double velocity_scale = s.params.cg_tolerance * h * gravity.norm();
  const double floor = velocity_scale * velocity_scale * s.total_mass;
  PcgResult pcg = s.solver.solve(s.A, s.model.bending_remainder(), s.model.bending_coefficient(h), s.rhs,
                                 s.constrained, s.z, s.params.cg_tolerance, floor,
                                 s.params.cg_max_iterations, threads, s.dv);
  s.stats.cg_iterations = pcg.iterations;
  s.stats.cg_residual = pcg.relative_residual;
  // Reactions of attached vertices: the constraint impulse is the residual of their rows.
  if (!s.params.attached.empty()) {
    s.solver.apply(s.A, s.model.bending_remainder(), s.model.bending_coefficient(h), s.dv, s.Adv, threads);
    for (int i = 0; i < nv; ++i) {
      if (s.attached_index[i] < 0) continue;
      const Vec3 impulse_on_vertex = s.Adv[i] - s.rhs[i];
      reactions.push_back(RigidImpulse{s.params.attached[s.attached_index[i]].body, s.x[i], -impulse_on_vertex});
    }
  }
  s.u.resize(nv);
  cloth_serial_for(nv, [&](std::ptrdiff_t i) {
    s.v[i] += s.dv[i];
    s.u[i] = h * s.v[i];
  });
  s.stats.seconds_solve = seconds_since(start);

  if (s.params.strain_limit > 0) {
    start = Clock::now();
    const StrainLimitStats ls = s.strain.limit(s.x, s.u, s.inv_mass, s.params.strain_limit,
                                               s.params.strain_limit_tolerance,
                                               s.params.strain_limit_sweeps, true, threads);
    // The end velocity is the limited displacement over the step (Provot 1995).
    if (ls.sweeps > 0) {
      const double inv_h = 1.0 / h;
      for (int i = 0; i < nv; ++i)
        if (s.inv_mass[i] > 0) s.v[i] = inv_h * s.u[i];
    }
    s.stats.strain_limit_sweeps = ls.sweeps;
    s.stats.strain_limited_edges = ls.edges_limited;
    s.stats.seconds_strain_limit = seconds_since(start);
  }

  start = Clock::now();
  ClothRigidSettings rs;
  rs.h = h;
  rs.thickness = s.params.thickness;
  rs.friction = s.params.friction;
  rs.threads = threads;
  rs.triangles = &s.triangles;
  ClothRigidStats rstats;
  resolve_cloth_rigid(s.x, s.u, s.v, mass, s.inv_mass, s.topology.edges, colliders, rs, s.rigid_work,
                      reactions, rstats);
  s.stats.rigid_contacts = rstats.contacts + rstats.edge_contacts + rstats.face_contacts;
  s.stats.rigid_swept_contacts = rstats.swept_contacts;
  // The contacts push vertices out along the shapes' normals, which stretches the edges around
  // them (a sheet settling on a sphere: 5–7% on the drape). Limit once more (edges only: the
  // tethers pull straight through bodies) and resolve the contacts again for the elements the
  // limit moved (a vertex, an edge or a triangle with a moved vertex; the others keep what the
  // first pass left, and when the limit moved nothing there is no second pass); the second
  // contact pass sweeps each such triangle from its start to its new end position, so nothing
  // the limit moved can cross a body.
  if (s.params.strain_limit > 0 && s.stats.rigid_contacts + rstats.swept_contacts > 0) {
    const Clock::time_point again = Clock::now();
    s.u_before_limit = s.u;
    const StrainLimitStats ls = s.strain.limit(s.x, s.u, s.inv_mass, s.params.strain_limit,
                                               s.params.strain_limit_tolerance,
                                               s.params.strain_limit_sweeps, false, threads);
    // Only the limit's own change becomes velocity: the contacts' push-out must not (no bounce).
    bool moved = false;
    if (ls.sweeps > 0) {
      const double inv_h = 1.0 / h;
      s.limit_moved.assign(nv, 0);
      for (int i = 0; i < nv; ++i) {
        if (!(s.inv_mass[i] > 0) || s.u[i] == s.u_before_limit[i]) continue;
        s.v[i] += inv_h * (s.u[i] - s.u_before_limit[i]);
        s.limit_moved[i] = 1;
        moved = true;
      }
    }
    s.stats.strain_limit_sweeps += ls.sweeps;
    s.stats.seconds_strain_limit += seconds_since(again);
    if (moved) {
      ClothRigidSettings again_rs = rs;
      again_rs.active_vertices = &s.limit_moved;
      ClothRigidStats second;
      resolve_cloth_rigid(s.x, s.u, s.v, mass, s.inv_mass, s.topology.edges, colliders, again_rs,
                          s.rigid_work, reactions, second);
      rstats.max_penetration = std::max(rstats.max_penetration, second.max_penetration);
    }
  }
  if (s.params.strain_limit > 0 && s.strain.has_tethers()) s.hold_bodies_by_tethers(colliders, reactions);
  s.stats.rigid_max_penetration = rstats.max_penetration;
  s.stats.seconds_rigid = seconds_since(start);

  if (s.params.self_collision) {
    if (before_self_collision) before_self_collision(s.x, s.u);
    SelfCollisionSettings ss;
    ss.h = h;
    ss.thickness = s.params.thickness;
    ss.friction = s.params.friction;
    ss.culling = s.params.culling;
    ss.ccd_impulse_iterations = s.params.ccd_impulse_iterations;
    ss.impact_zone_iterations = s.params.impact_zone_iterations;
    ss.threads = threads;
    SelfCollisionStats st;
    s.self.resolve(s.x, s.u, s.v, s.inv_mass, ss, st);
    s.stats.seconds_culling = st.seconds_culling;
    s.stats.seconds_ccd = st.seconds_ccd;
    s.stats.seconds_response = st.seconds_response;
    s.stats.pairs_after_culling = st.triangle_pairs;
    s.stats.primitive_tests = st.primitive_tests;
    s.stats.culled_nodes = st.culled_nodes;
    s.stats.proximity_contacts = st.proximity_contacts;
    s.stats.ccd_contacts = st.ccd_contacts;
    s.stats.ccd_passes = st.ccd_passes;
    s.stats.impact_zones = st.impact_zones;
    s.stats.impact_zone_vertices = st.impact_zone_vertices;
    s.stats.frozen = st.frozen;
  }

  cloth_serial_for(nv, [&](std::ptrdiff_t i) { s.x[i] += s.u[i]; });
  s.strain.max_strain_and_compression(s.x, s.stats.max_strain, s.stats.max_compression, threads);
  s.max_strain_seen = std::max(s.max_strain_seen, s.stats.max_strain);

  if (s.params.count_self_intersections) {
    start = Clock::now();
    s.stats.self_intersections = s.self.count_intersections(s.x, s.params.thickness, threads);
    s.stats.seconds_intersection_count = seconds_since(start);
  }
}

int ClothSim::vertex_count() const { return static_cast<int>(impl_->x.size()); }
const std::vector<std::array<int, 3>>& ClothSim::triangles() const { return impl_->triangles; }
const std::vector<Vec3>& ClothSim::positions() const { return impl_->x; }
const std::vector<Vec3>& ClothSim::velocities() const { return impl_->v; }
const std::vector<double>& ClothSim::masses() const { return impl_->model.masses(); }
const ClothParams& ClothSim::params() const { return impl_->params; }
const ClothStats& ClothSim::stats() const { return impl_->stats; }

void ClothSim::set_state(const std::vector<Vec3>& positions, const std::vector<Vec3>& velocities) {
  if (positions.size() != impl_->x.size() || velocities.size() != impl_->v.size())
    throw std::invalid_argument("ClothSim::set_state: size mismatch");
  impl_->x = positions;
  impl_->v = velocities;
}

void ClothSim::attach(int vertex, int body, const Pose& body_pose) {
  Impl& s = *impl_;
  if (vertex < 0 || vertex >= static_cast<int>(s.x.size()))
    throw std::invalid_argument("attached vertex " + std::to_string(vertex) + " out of range");
  ClothAttachment a;
  a.vertex = vertex;
  a.body = body;
  a.local_point = body_pose.inverse_apply(s.x[vertex]);
  s.attached_index[vertex] = static_cast<int>(s.params.attached.size());
  s.params.attached.push_back(a);
  s.constrained[vertex] = 1;
  s.inv_mass[vertex] = 0.0;
  s.build_strain_limiter();
}
void ClothSim::detach_body(int body) {
  Impl& s = *impl_;
  std::vector<ClothAttachment>& attached = s.params.attached;
  const std::size_t before = attached.size();
  std::erase_if(attached, [body](const ClothAttachment& a) { return a.body == body; });
  if (attached.size() == before) return;
  // Rebuilt as the constructor builds them: pins, the remaining attachments, massless vertices.
  const int nv = static_cast<int>(s.x.size());
  const std::vector<double>& m = s.model.masses();
  s.constrained.assign(nv, 0);
  s.attached_index.assign(nv, -1);
  for (int p : s.params.pinned) s.constrained[p] = 1;
  for (std::size_t k = 0; k < attached.size(); ++k) {
    s.constrained[attached[k].vertex] = 1;
    s.attached_index[attached[k].vertex] = static_cast<int>(k);
  }
  for (int i = 0; i < nv; ++i) {
    if (!(m[i] > 0)) s.constrained[i] = 1;
    s.inv_mass[i] = s.constrained[i] ? 0.0 : 1.0 / m[i];
  }
  s.build_strain_limiter();
}


double ClothSim::kinetic_energy() const {
  const std::vector<double>& m = impl_->model.masses();
  double e = 0;
  for (size_t i = 0; i < m.size(); ++i) e += 0.5 * m[i] * impl_->v[i].squaredNorm();
  return e;
}

double ClothSim::gravitational_energy(const Vec3& gravity) const {
  const std::vector<double>& m = impl_->model.masses();
  double e = 0;
  for (size_t i = 0; i < m.size(); ++i) e -= m[i] * gravity.dot(impl_->x[i]);
  return e;
}

double ClothSim::elastic_energy() const { return impl_->model.elastic_energy(impl_->x); }

int ClothSim::count_self_intersections() {
  return impl_->self.count_intersections(impl_->x, impl_->params.thickness, impl_->params.threads);
}

double ClothSim::max_edge_strain() const { return impl_->strain.max_strain(impl_->x); }
double ClothSim::max_edge_compression() const { return impl_->strain.max_compression(impl_->x); }
double ClothSim::max_edge_strain_seen() const { return impl_->max_strain_seen; }
double ClothSim::mean_edge_strain() const { return impl_->strain.mean_strain(impl_->x); }

}  // namespace impetus
