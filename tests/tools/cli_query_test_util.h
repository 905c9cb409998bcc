#pragma once
// Shared by the `impetus query` tests (cli_query_*_test.cpp): run one impetus-query/1 document
// through the built CLI and get its results, plus small vector helpers for the references.
#include <array>
#include <cmath>
#include <string>

#include "tests/tools/cli_test_util.h"

namespace impetus::test {

using V3 = std::array<double, 3>;

inline V3 v3(const json& value) {
  return {value.at(0).get<double>(), value.at(1).get<double>(), value.at(2).get<double>()};
}
inline double dot3(const V3& a, const V3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline double norm3(const V3& a) { return std::sqrt(dot3(a, a)); }
inline V3 sub3(const V3& a, const V3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline V3 add3(const V3& a, const V3& b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
inline V3 scale3(const V3& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
inline V3 cross3(const V3& a, const V3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
inline json vjson(const V3& v) { return json::array({v[0], v[1], v[2]}); }

// Rotates v by the unit quaternion q = [w, x, y, z] (our own formula, not Eigen's).
inline V3 rotate_by(const std::array<double, 4>& q, const V3& v) {
  const V3 u = {q[1], q[2], q[3]};
  const V3 t = scale3(cross3(u, v), 2.0);
  return add3(add3(v, scale3(t, q[0])), cross3(u, t));
}

using Q4 = std::array<double, 4>;  // [w, x, y, z]

inline Q4 quat_mul(const Q4& a, const Q4& b) {
  return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
          a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
          a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
          a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
}

// exp([ω]× t) as a quaternion.
inline Q4 quat_exp(const V3& w, double t) {
  const double angle = norm3(w) * t;
  if (angle == 0) return {1, 0, 0, 0};
  const V3 axis = scale3(w, 1 / norm3(w));
  return {std::cos(angle / 2), std::sin(angle / 2) * axis[0], std::sin(angle / 2) * axis[1],
          std::sin(angle / 2) * axis[2]};
}

class CliQueryTest : public CliTest {
 protected:
  // Runs `queries` (the array) as one document; checks the exit status and the result count,
  // returns the results array.
  json run_queries(const json& queries, int expected_exit = 0) {
    json doc = {{"format", "impetus-query/1"}, {"queries", queries}};
    write_text(path("q.json"), doc.dump(2));
    CommandResult r = cli("query " + quoted("q.json"));
    EXPECT_EQ(r.exit_code, expected_exit) << r.err;
    last_err_ = r.err;
    json out;
    try {
      out = json::parse(r.out);
    } catch (const json::exception& e) {
      ADD_FAILURE() << "stdout is not JSON: " << e.what() << "\n" << r.out << "\n" << r.err;
      return json::array();
    }
    EXPECT_EQ(out.at("format"), "impetus-query-result/1");
    const json results = out.at("results");
    EXPECT_EQ(results.size(), queries.size());
    for (std::size_t i = 0; i < results.size() && i < queries.size(); ++i) {
      EXPECT_EQ(results[i].at("id"), queries[i].at("id"));
      if (expected_exit == 0) {
        EXPECT_FALSE(results[i].contains("error")) << results[i].dump();
      }
    }
    return results;
  }

  std::string last_err_;
};

}  // namespace impetus::test
