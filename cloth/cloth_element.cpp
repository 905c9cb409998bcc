#include "cloth/cloth_element.h"

#include <algorithm>
#include <cmath>

namespace impetus {

void membrane_element(const ClothElement& e, const MembraneStiffness& k, const std::vector<Vec3>& x,
                      const std::vector<Vec3>& vel, double h, ElementStiffness& out,
                      std::array<Vec3, 3>& r, std::array<Vec3, 3>* forces) {
  const Vec3 &x0 = x[e.v[0]], &x1 = x[e.v[1]], &x2 = x[e.v[2]];
  const Vec3 &v0 = vel[e.v[0]], &v1 = vel[e.v[1]], &v2 = vel[e.v[2]];
  const Vec3 wu = e.cu[0] * x0 + e.cu[1] * x1 + e.cu[2] * x2;
  const Vec3 wv = e.cv[0] * x0 + e.cv[1] * x1 + e.cv[2] * x2;
  const Vec3 dwu = e.cu[0] * v0 + e.cu[1] * v1 + e.cu[2] * v2;
  const Vec3 dwv = e.cv[0] * v0 + e.cv[1] * v1 + e.cv[2] * v2;
  const double beta = k.damping;
  std::array<Vec3, 3> f = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
  std::array<Vec3, 3> Kv = {Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
  const double ka = k.stretch * e.area;
  auto stretch = [&](const Vec3& w, const Vec3& dw, const std::array<double, 3>& c, Vec3& w_hat,
                     double& alpha, double& beta_i) {
    const double len = w.norm();
    if (!(len > 0)) {
      w_hat.setZero();
      alpha = beta_i = 0;
      return;
    }
    const double inv_len = 1.0 / len;
    w_hat = inv_len * w;
    const double C = len - 1.0;
    const double Cdot = w_hat.dot(dw);
    const double lateral = std::max(C, 0.0) * inv_len;  // e
    alpha = ka * h * beta + ka * h * h * (1.0 - lateral);
    beta_i = ka * h * h * lateral;
    // Σ_j K_ij v_j = c_i·k·a·(P + e (I − P))·Σ_j c_j v_j.
    const Vec3 Kcdw = ka * ((1.0 - lateral) * Cdot * w_hat + lateral * dw);
    const double force = ka * (C + beta * Cdot);
    for (int i = 0; i < 3; ++i) {
      f[i] -= (force * c[i]) * w_hat;
      Kv[i] += c[i] * Kcdw;
    }
  };
  stretch(wu, dwu, e.cu, out.wu_hat, out.alpha_u, out.beta_u);
  stretch(wv, dwv, e.cv, out.wv_hat, out.alpha_v, out.beta_v);
  const double ks = k.shear * e.area;
  const double C = wu.dot(wv);
  double Cdot = 0;
  for (int i = 0; i < 3; ++i) {
    out.g[i] = e.cu[i] * wv + e.cv[i] * wu;
    Cdot += out.g[i].dot(vel[e.v[i]]);
  }
  out.shear = ks * (h * beta + h * h);
  for (int i = 0; i < 3; ++i) {
    f[i] -= (ks * (C + beta * Cdot)) * out.g[i];
    Kv[i] += (ks * Cdot) * out.g[i];
  }
  for (int i = 0; i < 3; ++i) r[i] = h * (f[i] - h * Kv[i]);
  if (forces) *forces = f;
}

}  // namespace impetus
