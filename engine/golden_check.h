#pragma once
// Regression check of a run against a golden summary.json (`impetus check`): per body the
// position error [m], orientation error [rad] (angle of q_golden⁻¹·q, sign-invariant so q and −q
// agree), and linear [m/s] and angular [rad/s] velocity errors (Euclidean norms of the
// differences). The run passes when the largest of all these over all bodies is <= tolerance,
// no body is missing or extra and the statuses agree; in exact mode it passes when the
// state_hash values are equal (bit-identical final states).
#include <optional>
#include <string>
#include <vector>

#include "engine/scene_runner.h"

namespace impetus {

/// Reads the parts of a summary.json that a check compares. On failure returns nullopt and sets
/// `error` to "FILE: JSON.PATH: problem". Null numbers (how JSON prints NaN) read as NaN.
std::optional<FinalStates> load_golden_summary(const std::string& path, std::string* error);

struct GoldenOptions {
  double tolerance = 1e-6;  // max allowed error, mixed units (m, rad, m/s, rad/s)
  bool exact = false;       // compare state_hash instead of tolerances
  int max_listed = 5;       // worst bodies listed in the report
};

struct BodyError {
  std::string name;
  double position = 0;          // m
  double orientation = 0;       // rad
  double linear_velocity = 0;   // m/s
  double angular_velocity = 0;  // rad/s
  /// Largest of the four; +inf when any is NaN so that a NaN never passes.
  double max() const;
};

struct GoldenReport {
  bool passed = false;
  double max_error = 0;             // over bodies present in both
  bool hash_equal = false;
  std::vector<BodyError> worst;     // the max_listed largest, largest first
  std::vector<std::string> missing; // in the golden, not in the run
  std::vector<std::string> extra;   // in the run, not in the golden
  /// Readable, several lines: verdict, mismatching status/steps, worst bodies, missing/extra.
  std::string text;
};

/// Orientation error in radians between two unit quaternions, sign-invariant: 0 for q and −q.
double orientation_angle_error(const Quat& a, const Quat& b);

GoldenReport compare_with_golden(const FinalStates& run, const FinalStates& golden,
                                 const GoldenOptions& options);

}  // namespace impetus
