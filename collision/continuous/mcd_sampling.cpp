// Uniform sampling baseline for MCD (paper 2, §VI, eq. 6.3).
#include <algorithm>
#include <cmath>
#include <limits>

#include "collision/continuous/continuous_distance.h"
#include "collision/continuous/mcd_pair_distance.h"

namespace impetus {

long long mcd_samples_for_tolerance(double motion_bound, double t0, double t1, double tolerance) {
  // Between neighbouring samples h apart, eq. 4.8 gives min >= min(δi, δi+1) − μh/2, so
  // n − 1 >= μ (t1 − t0)/(2ε) intervals certify ε (eq. 6.3 states the bound as (t1 − t0)μ/n).
  const double span = std::max(0.0, t1 - t0);
  const double intervals = std::ceil(motion_bound * span / (2 * tolerance));
  if (!(intervals < 1e15)) return std::numeric_limits<long long>::max();
  return std::max<long long>(2, 1 + static_cast<long long>(intervals));
}

McdResult mcd_sampling(const Shape& a, const RigidMotion& motion_a, const Shape& b,
                       const RigidMotion& motion_b, double t0, double t1,
                       const McdOptions& options) {
  mcd_detail::PairDistance pair(a, motion_a, b, motion_b);
  const double mu = pair.lipschitz();
  long long n = options.samples >= 2 ? options.samples
                                     : mcd_samples_for_tolerance(mu, t0, t1, options.tolerance);
  bool capped = false;
  if (n > options.max_evaluations) {
    n = std::max(2, options.max_evaluations);
    capped = true;
  }
  if (!(t1 > t0)) n = 1;
  double lower = std::numeric_limits<double>::infinity();
  double previous = 0;
  const double h = n > 1 ? (t1 - t0) / static_cast<double>(n - 1) : 0.0;
  for (long long i = 0; i < n; ++i) {
    const double t = i + 1 == n ? t1 : t0 + static_cast<double>(i) * h;
    const double d = pair(t).distance;
    // Eq. 4.8 on [t_{i−1}, t_i] with the Lipschitz motion bound μ·h.
    if (i > 0) lower = std::min(lower, 0.5 * (previous + d - mu * h));
    previous = d;
  }
  if (n == 1) lower = pair.best;
  return mcd_detail::make_result(pair, lower, options.tolerance, capped);
}

}  // namespace impetus
