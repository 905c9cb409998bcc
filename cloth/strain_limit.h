#pragma once
// Strain limiting of the cloth's edges (Provot 1995, "Deformation constraints in a mass-spring
// model to describe rigid cloth behavior"; Bridson, Fedkiw & Anderson 2002, §6): after the
// implicit solve, every edge whose end-of-step length leaves [(1 − ε)·L0, (1 + ε)·L0] is
// brought back to the nearest bound by moving its two end points along the edge in inverse
// proportion to their masses (pinned and attached vertices do not move). The projection acts
// on the step's displacement u (end position x0 + u); the caller turns the changed u back into
// a velocity (v = u / h), so the removed stretch leaves no energy behind.
//
// Why: the membrane stiffness alone lets a hanging cloth stretch by its weight divided by the
// stiffness, which near the pins of a corner-hung sheet is tens of per cent (rubber); real
// woven cloth stretches a few per cent. A stiffer membrane would make the backward-Euler system
// worse conditioned; the limit costs a few sweeps over the edges.
//
// Edge projections alone converge slowly on long chains hanging from pins: a correction travels
// about one edge per Gauss–Seidel sweep against the sweep direction, so a 64-edge sheet hung
// from its corners kept 12% of stretch after 64 sweeps. Long-range attachments (Kim,
// Chentanez & Müller 2012, "Long range attachments") fix that: every free vertex is tethered
// to every anchor (pinned or attached vertex) and may be no farther from it than (1 + ε) times
// their rest distance, which is the geodesic distance for a flat rest sheet (straight line) and
// the shortest path along rest edges otherwise (an upper bound). A tether only ever shortens
// and moves only the free vertex, so the sheet's weight hangs on the anchors at once.
//
// Each sweep projects the tethers, then the edges in Gauss–Seidel order, alternating forward
// and backward; sweeps stop when no edge is beyond its bound by more than `tolerance`·L0 or
// after `max_sweeps`. The projections are serial and in a fixed order, so the result is the
// same bits for any thread count; nothing is allocated per step.
#include <array>
#include <vector>

#include "collision/base/math.h"

namespace impetus {

struct StrainLimitStats {
  int sweeps = 0;           // sweeps run (0: every edge was within its bounds)
  int edges_limited = 0;    // edges beyond a bound in the first sweep
  double worst_before = 0;  // largest |L/L0 − 1| found in the first sweep
};

class StrainLimiter {
 public:
  /// `anchors`: vertices that never move under the limit (pinned or attached).
  void build(const std::vector<std::array<int, 2>>& edges, const std::vector<Vec3>& rest,
             const std::vector<int>& anchors);

  /// Projects the end positions x0 + u onto the strain bounds ±`limit` (by changing u only),
  /// with the tethers when `tethers` (they pull straight towards the anchors, through whatever
  /// lies between, so only before the contacts are resolved). `threads` only share the first
  /// sweep's tests: the result is the same bits for any count.
  StrainLimitStats limit(const std::vector<Vec3>& x0, std::vector<Vec3>& u,
                         const std::vector<double>& inv_mass, double limit, double tolerance,
                         int max_sweeps, bool tethers = true, int threads = 1) const;

  /// Directions (unit, from the anchor to the vertex) of the tethers of free vertex i that the
  /// end position x0 + u stretches beyond (1 + limit) times their rest length; at most `max`
  /// of them, in anchor order. Returns how many were written.
  int violated_tethers(int i, const std::vector<Vec3>& x0, const std::vector<Vec3>& u, double limit,
                       Vec3* directions, int max) const;
  bool has_tethers() const { return !anchors_.empty(); }

  /// Largest stretch L/L0 − 1 over the edges at positions x (0 when none is stretched).
  double max_strain(const std::vector<Vec3>& x) const;
  /// Largest compression 1 − L/L0 over the edges (0 when none is shorter than at rest).
  double max_compression(const std::vector<Vec3>& x) const;
  /// Both of the above in one pass over the edges (the same values, for any `threads`).
  void max_strain_and_compression(const std::vector<Vec3>& x, double& strain, double& compression,
                                  int threads = 1) const;
  double mean_strain(const std::vector<Vec3>& x) const;

 private:
  std::vector<std::array<int, 2>> edges_;
  std::vector<double> rest_length_;
  std::vector<int> anchors_;
  std::vector<double> tether_length_;  // [anchor · vertex count + vertex]: rest distance
  std::vector<int> vertex_word_start_, vertex_words_;  // each vertex's edge words (CSR)
  // Scratch of limit() (change tracking, see there), kept to allocate nothing per step.
  mutable std::vector<long long> moved_, ok_, tether_ok_;
  mutable std::vector<char> edge_word_open_, tether_word_open_;  // per 64 constraints
  mutable std::vector<std::array<double, 2>> chunk_extremes_;  // max_strain_and_compression
};

}  // namespace impetus
