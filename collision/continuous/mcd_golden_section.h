#pragma once
// Golden-section search for a local minimum of a scalar function of time (paper 2, §III.B),
// shared by the golden-section and hybrid MCD methods. Internal to the MCD implementation.
#include <algorithm>
#include <cmath>

namespace impetus::mcd_detail {

/// Bracket [a, b, c] with b first at the midpoint; the new point d goes into the larger of
/// [a, b], [b, c] at the golden ratio R = (3 − √5)/2, and the smaller of f(b), f(d) becomes the new
/// middle. Stops when c − a <= time_tolerance, when the bracket's values agree to
/// value_tolerance (f(a), f(c) >= f(b) and both within value_tolerance of f(b)), or after
/// max_evaluations calls of f. `f(t)` returns δ(t); the caller keeps the best value it has seen
/// (the paper returns the smallest of the evaluated values, since f(b) <= f(a), f(c) is not
/// guaranteed at the start). Can miss the global minimum when δ has several local minima.
template <class F>
void golden_section_search(F&& f, double a, double c, double value_tolerance,
                           double time_tolerance, int max_evaluations) {
  constexpr double kR = 0.38196601125010515;  // (3 − √5)/2
  if (max_evaluations < 3 || !(c > a)) {
    if (max_evaluations >= 1) f(a);
    return;
  }
  double fa = f(a), fc = f(c);
  double b = 0.5 * (a + c);
  double fb = f(b);
  for (int used = 3; used < max_evaluations; ++used) {
    if (c - a <= time_tolerance) return;
    if (fa >= fb && fc >= fb && fa - fb <= value_tolerance && fc - fb <= value_tolerance) return;
    const bool left = (b - a) >= (c - b);
    const double d = left ? b - kR * (b - a) : b + kR * (c - b);
    if (!(d > a && d < c) || d == b) return;  // the bracket cannot shrink further in doubles
    const double fd = f(d);
    if (left) {
      if (fd >= fb) {
        a = d;
        fa = fd;
      } else {
        c = b;
        fc = fb;
        b = d;
        fb = fd;
      }
    } else {
      if (fd >= fb) {
        c = d;
        fc = fd;
      } else {
        a = b;
        fa = fb;
        b = d;
        fb = fd;
      }
    }
  }
}

}  // namespace impetus::mcd_detail
