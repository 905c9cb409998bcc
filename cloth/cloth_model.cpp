#include "cloth/cloth_model.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "cloth/cloth_parallel.h"

namespace impetus {
namespace {

// Orthonormal (u, v) chart of a rest triangle: u along the warp direction projected into the
// triangle's plane (its first edge if the warp is normal to it), v = n × u.
void rest_chart(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& warp, Vec3& U, Vec3& V) {
  Vec3 n = (x1 - x0).cross(x2 - x0).normalized();
  Vec3 u = warp - warp.dot(n) * n;
  if (!(u.norm() > 1e-8 * std::max(1.0, warp.norm()))) u = x1 - x0;
  U = (u - u.dot(n) * n).normalized();
  V = n.cross(U);
}

}  // namespace

void ClothModel::build(const ClothTopology& topology, const std::vector<Vec3>& rest,
                       const ClothParams& params) {
  params_ = params;
  const int nv = topology.vertex_count;
  const int nt = static_cast<int>(topology.triangles.size());
  Vec3 warp = params.warp_direction;
  if (!(warp.norm() > 0) && nt > 0) {
    const auto& t0 = topology.triangles[0];
    warp = rest[t0[1]] - rest[t0[0]];
  }
  elements_.resize(nt);
  area_.resize(nt);
  mass_.assign(nv, 0.0);
  for (int t = 0; t < nt; ++t) {
    const auto& tri = topology.triangles[t];
    const Vec3 &x0 = rest[tri[0]], &x1 = rest[tri[1]], &x2 = rest[tri[2]];
    Vec3 U, V;
    rest_chart(x0, x1, x2, warp, U, V);
    // Dm = [[Δu1, Δu2], [Δv1, Δv2]]; [w_u w_v] = [x1 − x0, x2 − x0] Dm⁻¹.
    const double du1 = (x1 - x0).dot(U), du2 = (x2 - x0).dot(U);
    const double dv1 = (x1 - x0).dot(V), dv2 = (x2 - x0).dot(V);
    const double det = du1 * dv2 - du2 * dv1;
    const double i00 = dv2 / det, i01 = -du2 / det, i10 = -dv1 / det, i11 = du1 / det;
    ClothElement& e = elements_[t];
    e.v = tri;
    e.cu = {-(i00 + i10), i00, i10};
    e.cv = {-(i01 + i11), i01, i11};
    e.area = 0.5 * std::abs(det);
    area_[t] = e.area;
    for (int k = 0; k < 3; ++k) mass_[tri[k]] += params.areal_density * e.area / 3.0;
  }

  // Isometric bending: cotangent Laplacian weights and mixed Voronoi vertex areas (Meyer et
  // al. 2003: Voronoi area in non-obtuse triangles, A/2 at an obtuse corner and A/4 at the
  // others), which tile the surface and match the Laplacian's stencil, so that |Lx|²/A_v is the
  // local (κ1 + κ2)² times the area on any triangulation, the alternating-diagonal grid included.
  std::vector<std::map<int, double>> weight(nv);
  std::vector<double> vertex_area(nv, 0.0);
  for (int t = 0; t < nt; ++t) {
    const auto& tri = topology.triangles[t];
    double cot[3];
    bool obtuse = false;
    for (int k = 0; k < 3; ++k) {
      const int o = tri[k], i = tri[(k + 1) % 3], j = tri[(k + 2) % 3];
      const Vec3 a = rest[i] - rest[o], b = rest[j] - rest[o];
      cot[k] = a.dot(b) / a.cross(b).norm();
      obtuse = obtuse || cot[k] < 0;
      weight[i][j] += 0.5 * cot[k];
      weight[j][i] += 0.5 * cot[k];
    }
    for (int k = 0; k < 3; ++k) {
      const int o = tri[k], i = tri[(k + 1) % 3], j = tri[(k + 2) % 3];
      if (!obtuse) {
        // ⅛ (|o i|² cot∠j + |o j|² cot∠i).
        vertex_area[o] += 0.125 * ((rest[i] - rest[o]).squaredNorm() * cot[(k + 2) % 3] +
                                   (rest[j] - rest[o]).squaredNorm() * cot[(k + 1) % 3]);
      } else {
        vertex_area[o] += cot[k] < 0 ? 0.5 * area_[t] : 0.25 * area_[t];
      }
    }
  }
  std::map<std::pair<int, int>, double> q;
  for (int v = 0; v < nv; ++v) {
    if (topology.boundary_vertex[v] || weight[v].empty()) continue;
    // Stencil of (L x)_v = Σ_j w_vj (x_j − x_v).
    // Zero weights (edges opposite right angles, e.g. a grid's diagonals) are dropped: they
    // would only widen Q's stencil.
    std::vector<std::pair<int, double>> s;
    double sum = 0, scale = 0;
    for (const auto& [j, w] : weight[v]) scale += std::abs(w);
    for (const auto& [j, w] : weight[v]) {
      if (std::abs(w) <= 1e-12 * scale) continue;
      s.push_back({j, w});
      sum += w;
    }
    s.push_back({v, -sum});
    const double inv_area = 1.0 / vertex_area[v];
    for (const auto& [a, wa] : s)
      for (const auto& [b, wb] : s) q[{a, b}] += inv_area * wa * wb;
  }
  bend_q_ = ScalarCsrMatrix{};
  bend_q_.rows = nv;
  bend_q_.row_offsets.assign(nv + 1, 0);
  for (const auto& [key, value] : q) {
    ++bend_q_.row_offsets[key.first + 1];
    bend_q_.cols.push_back(key.second);
    bend_q_.values.push_back(value);
  }
  for (int v = 0; v < nv; ++v) bend_q_.row_offsets[v + 1] += bend_q_.row_offsets[v];

  // Gather lists from element slots to vertices (forces) built now; block slots on first use.
  vertex_offsets_.assign(nv + 1, 0);
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) ++vertex_offsets_[elements_[t].v[k] + 1];
  for (int v = 0; v < nv; ++v) vertex_offsets_[v + 1] += vertex_offsets_[v];
  vertex_sources_.resize(vertex_offsets_[nv]);
  {
    std::vector<int> fill(vertex_offsets_.begin(), vertex_offsets_.end() - 1);
    for (int t = 0; t < nt; ++t)
      for (int k = 0; k < 3; ++k) vertex_sources_[fill[elements_[t].v[k]]++] = 3 * t + k;
  }
  element_stiffness_.resize(nt);
  element_rhs_.resize(nt);
  pattern_ready_ = false;
}

double ClothModel::bending_coefficient(double h) const {
  return params_.bend_stiffness * (h * params_.damping + h * h);
}

MembraneStiffness ClothModel::membrane() const {
  return MembraneStiffness{params_.stretch_stiffness, params_.shear_stiffness, params_.damping};
}

ClothModel::ElementSystem ClothModel::element_system(int t, const std::vector<Vec3>& x,
                                                     const std::vector<Vec3>& v, double h) const {
  ElementSystem s;
  ElementStiffness k;
  membrane_element(elements_[t], membrane(), x, v, h, k, s.rhs, &s.forces);
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      s.blocks[3 * a + b].setZero();
      k.add_block(elements_[t], a, b, s.blocks[3 * a + b]);
    }
  }
  return s;
}

void ClothModel::assemble(const std::vector<Vec3>& x, const std::vector<Vec3>& v, double h,
                          const Vec3& gravity, int threads, BlockCsrMatrix& A,
                          std::vector<Vec3>& rhs) {
  const int nt = static_cast<int>(elements_.size());
  const int nv = static_cast<int>(mass_.size());
  if (!pattern_ready_ || pattern_owner_ != &A) {
    // For each upper block slot (i, j), j ≥ i, the element-local blocks that add into it, in
    // element order.
    std::vector<int> upper_of_slot(A.cols.size(), -1);
    upper_slot_.clear();
    lower_slot_.clear();
    upper_vertex_.clear();
    for (int i = 0; i < A.rows; ++i) {
      for (int k = A.diagonal[i]; k < A.row_offsets[i + 1]; ++k) {
        upper_of_slot[k] = static_cast<int>(upper_slot_.size());
        upper_slot_.push_back(k);
        lower_slot_.push_back(A.cols[k] == i ? -1 : A.find(A.cols[k], i));
        upper_vertex_.push_back(A.cols[k] == i ? i : -1);
      }
    }
    const int nu = static_cast<int>(upper_slot_.size());
    std::vector<std::vector<int>> sources(nu);
    for (int t = 0; t < nt; ++t) {
      for (int a = 0; a < 3; ++a) {
        for (int b = 0; b < 3; ++b) {
          if (elements_[t].v[b] < elements_[t].v[a]) continue;
          const int slot = A.find(elements_[t].v[a], elements_[t].v[b]);
          sources[upper_of_slot[slot]].push_back(9 * t + 3 * a + b);
        }
      }
    }
    slot_offsets_.assign(nu + 1, 0);
    slot_sources_.clear();
    for (int u = 0; u < nu; ++u) {
      slot_sources_.insert(slot_sources_.end(), sources[u].begin(), sources[u].end());
      slot_offsets_[u + 1] = static_cast<int>(slot_sources_.size());
    }
    // Q's entries on A's pattern are folded into its blocks below; the others form R.
    upper_bending_.assign(nu, 0.0);
    bend_r_ = ScalarCsrMatrix{};
    bend_r_.rows = nv;
    bend_r_.row_offsets.assign(nv + 1, 0);
    for (int i = 0; i < bend_q_.rows; ++i) {
      for (int k = bend_q_.row_offsets[i]; k < bend_q_.row_offsets[i + 1]; ++k) {
        const int j = bend_q_.cols[k];
        const int slot = A.find(i, j);
        if (slot >= 0) {
          if (j >= i) upper_bending_[upper_of_slot[slot]] = bend_q_.values[k];
          continue;
        }
        bend_r_.cols.push_back(j);
        bend_r_.values.push_back(bend_q_.values[k]);
      }
      bend_r_.row_offsets[i + 1] = static_cast<int>(bend_r_.cols.size());
    }
    pattern_ready_ = true;
    pattern_owner_ = &A;
  }

  // Per element: the compact h·D + h²·K and h·(f − h·K·v0).
  const MembraneStiffness k = membrane();
  cloth_parallel_for(nt, threads, [&](std::ptrdiff_t t) {
    membrane_element(elements_[t], k, x, v, h, element_stiffness_[t], element_rhs_[t]);
  });

  // Each upper block from its element blocks (in a fixed order), the mass and the folded
  // bending; its mirror below the diagonal is its transpose.
  const double cb = bending_coefficient(h);
  const bool fold_bending = cb != 0 && bend_q_.rows == nv;
  // (Raw pointers taken inside each chunk: through the OpenMP region the captured references
  // escape, and the compiler would reload every vector's data pointer after each store.)
  for_each_chunk(static_cast<std::ptrdiff_t>(upper_slot_.size()), threads,
                 [&](std::ptrdiff_t, std::ptrdiff_t begin, std::ptrdiff_t end) {
    const int* offsets = slot_offsets_.data();
    const int* sources = slot_sources_.data();
    const ElementStiffness* stiffness = element_stiffness_.data();
    const ClothElement* elements = elements_.data();
    const int* upper = upper_slot_.data();
    const int* lower = lower_slot_.data();
    const int* vertex = upper_vertex_.data();
    const double* bending = upper_bending_.data();
    const double* mass = mass_.data();
    Mat3* blocks = A.blocks.data();
    for (std::ptrdiff_t u = begin; u < end; ++u) {
      ElementStiffness::BlockSum block;
      for (int s = offsets[u]; s < offsets[u + 1]; ++s) {
        const int src = sources[s];
        const int t = src / 9, a = (src % 9) / 3, b = src % 3;
        stiffness[t].add_block(elements[t], a, b, block);
      }
      double diagonal = vertex[u] >= 0 ? mass[vertex[u]] : 0.0;
      if (fold_bending) diagonal += cb * bending[u];
      if (diagonal != 0) {
        block.m00 += diagonal;
        block.m11 += diagonal;
        block.m22 += diagonal;
      }
      // Stored entry by entry (a Mat3 temporary written as scalars and copied as packets
      // stalled on store-to-load forwarding).
      block.store(blocks[upper[u]]);
      if (lower[u] >= 0) block.store_transpose(blocks[lower[u]]);
    }
  });
  rhs.resize(nv);
  // Each vertex gathers its own right-hand side (and below adds its own bending row): in
  // parallel, the same sums in the same order.
  cloth_parallel_for(nv, threads, [&](std::ptrdiff_t i) {
    Vec3 sum = h * mass_[i] * gravity;
    for (int s = vertex_offsets_[i]; s < vertex_offsets_[i + 1]; ++s) {
      const int src = vertex_sources_[s];
      sum += element_rhs_[src / 3][src % 3];
    }
    rhs[i] = sum;
  });
  // Bending: −h·k_b·Q·(x0 + (damping + h)·v0).
  if (params_.bend_stiffness != 0 && bend_q_.rows > 0) {
    std::vector<Vec3>& y = bend_y_;
    y.resize(nv);
    const double c = params_.damping + h;
    cloth_serial_for(nv, [&](std::ptrdiff_t i) { y[i] = x[i] + c * v[i]; });
    bend_q_.multiply_add(-h * params_.bend_stiffness, y, rhs, threads);
  }
}

void ClothModel::internal_forces(const std::vector<Vec3>& x, const std::vector<Vec3>& v,
                                 std::vector<Vec3>& f) const {
  f.assign(mass_.size(), Vec3::Zero());
  const MembraneStiffness k = membrane();
  for (const ClothElement& e : elements_) {
    ElementStiffness stiffness;
    std::array<Vec3, 3> rhs, fe;
    membrane_element(e, k, x, v, 1.0, stiffness, rhs, &fe);  // f does not depend on h
    for (int i = 0; i < 3; ++i) f[e.v[i]] += fe[i];
  }
  if (params_.bend_stiffness != 0 && bend_q_.rows > 0) {
    std::vector<Vec3> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] + params_.damping * v[i];
    bend_q_.multiply_add(-params_.bend_stiffness, y, f, 1);
  }
}

double ClothModel::bending_energy(const std::vector<Vec3>& x) const {
  return params_.bend_stiffness * bend_q_.quadratic_form(x);
}

double ClothModel::elastic_energy(const std::vector<Vec3>& x) const {
  double e = 0;
  for (const ClothElement& el : elements_) {
    const Vec3 wu = el.cu[0] * x[el.v[0]] + el.cu[1] * x[el.v[1]] + el.cu[2] * x[el.v[2]];
    const Vec3 wv = el.cv[0] * x[el.v[0]] + el.cv[1] * x[el.v[1]] + el.cv[2] * x[el.v[2]];
    const double cu = wu.norm() - 1, cv = wv.norm() - 1, cs = wu.dot(wv);
    e += 0.5 * el.area * (params_.stretch_stiffness * (cu * cu + cv * cv) + params_.shear_stiffness * cs * cs);
  }
  return e + bending_energy(x);
}

}  // namespace impetus
