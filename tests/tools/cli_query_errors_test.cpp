// `impetus query`: every kind of invalid query gets {"id", "error"} naming the JSON path of the
// problem, the valid queries around it are still answered, and the exit status is 2.
#include <string>
#include <utility>
#include <vector>

#include "tests/tools/cli_query_test_util.h"

namespace impetus::test {
namespace {

json sphere(double r, const V3& x) {
  return {{"shape", {{"type", "sphere"}, {"radius", r}}}, {"position", vjson(x)}};
}
json ellipsoid(const V3& radii, const V3& x) {
  return {{"shape", {{"type", "ellipsoid"}, {"radii", vjson(radii)}}}, {"position", vjson(x)}};
}
json box(const V3& x) {
  return {{"shape", {{"type", "box"}, {"half_extents", vjson({0.5, 0.5, 0.5})}}},
          {"position", vjson(x)}};
}

TEST_F(CliQueryTest, InvalidQueriesGetAnErrorNamingTheJsonPath) {
  const json e_a = ellipsoid({1, 0.5, 0.4}, {0, 0, 0});
  const json e_b = ellipsoid({0.3, 0.3, 0.6}, {2, 0, 0});
  const json closest = {{"type", "closest_approach"}, {"a", e_a}, {"b", e_b}};
  const json mcd = {{"type", "mcd"}, {"a", sphere(0.5, {0, 0, 0})},
                    {"b", sphere(0.5, {3, 0, 0})}, {"interval", {0, 1}}};
  const json toi = {{"type", "plane_toi"}, {"a", box({0, 0, 2})},
                    {"plane", {{"normal", {0, 0, 1}}, {"offset", 0}}}, {"interval", {0, 1}}};
  const json phong = {{"type", "phong_distance"}, {"a", box({0, 0, 0})}, {"b", box({0, 0, 2})}};
  auto with = [](json q, const std::string& key, const json& value) {
    q[key] = value;
    return q;
  };
  auto without = [](json q, const std::string& key) {
    q.erase(key);
    return q;
  };
  json bad_position = mcd;
  bad_position["a"]["position"] = {0, nullptr, 0};
  json bad_velocity = mcd;
  bad_velocity["b"]["linear_velocity"] = {1, 2};
  json plane_extra = toi;
  plane_extra["plane"]["type"] = "plane";
  // Two triangles of a tetrahedron: a mesh, but not a closed one.
  const json open_mesh = {
      {"shape",
       {{"type", "mesh"},
        {"vertices", json::parse("[[0,0,0],[1,0,0],[0,1,0],[0,0,1]]")},
        {"triangles", json::parse("[[0,2,1],[0,1,3]]")}}},
      {"position", vjson({0, 0, 3})}};
  json zero_normal = toi;
  zero_normal["plane"]["normal"] = {0, 0, 0};
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"type", "nearest"}}, ".type: unknown query type 'nearest'"},
      {with(closest, "a", sphere(1, {0, 0, 0})), ".a.shape.type: must be ellipsoid"},
      {with(closest, "tolerance", 0), ".tolerance: must be a positive"},
      {with(closest, "method", "newton"), ".method: unknown value 'newton'"},
      {with(closest, "interval", json::array({0, 1})), ".interval: unknown key"},
      {without(mcd, "interval"), ": missing key 'interval'"},
      {with(mcd, "interval", json::array({2, 1})), ".interval: must be [t0, t1] with t0 <= t1"},
      {bad_position, ".a.position: must be an array of 3 finite numbers"},
      {with(with(mcd, "a", box({0, 0, 0})), "method", "hybrid"),
       ": mcd: hybrid needs two capsules or spheres"},
      {with(mcd, "samples", 10), ".samples: only allowed with \"method\": \"sampling\""},
      {with(with(mcd, "method", "sampling"), "samples", 1), ".samples: must be an integer"},
      {bad_velocity, ".b.linear_velocity: must be an array of 3 finite numbers"},
      {with(mcd, "tolerance", -1e-3), ".tolerance: must be a positive"},
      {with(mcd, "method", 3), ".method: must be a string"},
      {with(toi, "a", sphere(1, {0, 0, 2})), ".a.shape.type: must be one of box, convex"},
      {zero_normal, ".plane.normal: must be non-zero"},
      {with(toi, "method", "discrete"), ": missing key 'dt' (required by"},
      {with(toi, "dt", 0.01), ".dt: only allowed with \"method\": \"discrete\""},
      {with(with(toi, "method", "discrete"), "dt", 0), ".dt: must be a positive"},
      {plane_extra, ".plane.type: unknown key"},
      {without(toi, "plane"), ": missing key 'plane'"},
      {with(phong, "a", sphere(1, {0, 0, 0})), ".a.shape.type: must be one of convex, box, mesh"},
      {with(phong, "warm_start", json::array({0, 0, 0})), ".warm_start: must be non-zero"},
      {with(phong, "b", ellipsoid({1, 1, 1}, {0, 0, 0})), ".b.shape.type: must be one of"},
      {with(phong, "b", open_mesh), ": phong_distance: the mesh is not closed"},
  };
  json queries = json::array();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    json q = cases[i].first;
    q["id"] = "bad" + std::to_string(i);
    queries.push_back(q);
  }
  // A valid query after them, and one without an id.
  queries.push_back({{"id", "good"}, {"type", "distance"}, {"a", sphere(0.5, {0, 0, 0})},
                     {"b", sphere(0.25, {0, 0, 2})}});
  queries.push_back(without(with(closest, "id", 1), "id"));

  json doc = {{"format", "impetus-query/1"}, {"queries", queries}};
  write_text(path("q.json"), doc.dump(2));
  CommandResult r = cli("query " + quoted("q.json"));
  EXPECT_EQ(r.exit_code, 2);
  const json results = json::parse(r.out).at("results");
  ASSERT_EQ(results.size(), cases.size() + 2);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const json& slot = results[i];
    EXPECT_EQ(slot.at("id"), "bad" + std::to_string(i));
    ASSERT_TRUE(slot.contains("error")) << slot.dump();
    EXPECT_EQ(slot.size(), 2u) << slot.dump();
    const std::string prefix = "queries[" + std::to_string(i) + "]";
    EXPECT_CONTAINS(slot.at("error").get<std::string>(), prefix + cases[i].second);
  }
  const json& good = results[cases.size()];
  EXPECT_FALSE(good.contains("error")) << good.dump();
  EXPECT_NEAR(good.at("distance").get<double>(), 1.25, 1e-12);
  const json& no_id = results[cases.size() + 1];
  EXPECT_TRUE(no_id.at("id").is_null());
  EXPECT_CONTAINS(no_id.at("error").get<std::string>(),
                  "queries[" + std::to_string(cases.size() + 1) + "]: missing key 'id'");
  // One `error:` line per bad slot on stderr, naming the file.
  EXPECT_EQ(count_lines(r.err), static_cast<int>(cases.size()) + 1) << r.err;
  EXPECT_CONTAINS(r.err, "q.json: queries[0].type");
}

TEST_F(CliQueryTest, ValidQueriesOfEveryTypeExitZero) {
  const json queries = json::array({
      {{"id", "c"}, {"type", "closest_approach"},
       {"a", ellipsoid({1, 0.5, 0.4}, {0, 0, 0})}, {"b", ellipsoid({0.3, 0.3, 0.6}, {2, 0, 0})},
       {"tolerance", 1e-12}, {"method", "steffensen"}},
      {{"id", "d"}, {"type", "distance"}, {"a", box({0, 0, 0})}, {"b", box({0, 0, 3})}},
      {{"id", "m"}, {"type", "mcd"}, {"a", sphere(0.5, {0, 0, 0})},
       {"b", sphere(0.5, {3, 0, 0})}, {"interval", {0, 1}}, {"method", "sampling"},
       {"samples", 11}},
      {{"id", "p"}, {"type", "plane_toi"}, {"a", box({0, 0, 2})},
       {"plane", {{"normal", {0, 0, 1}}, {"offset", 0}}}, {"interval", {0, 1}},
       {"method", "extreme_vertex"}},
  });
  const json results = run_queries(queries, 0);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_NEAR(results[0].at("distance").get<double>(), 1.3, 1e-9);
  EXPECT_NEAR(results[1].at("distance").get<double>(), 2.0, 1e-9);
  // Static spheres: δ = 2 all along; 11 samples.
  EXPECT_NEAR(results[2].at("mcd").get<double>(), 2.0, 1e-12);
  EXPECT_EQ(results[2].at("evaluations").get<int>(), 11);
  // A static box: no contact.
  EXPECT_TRUE(results[3].at("toi").is_null());
}

}  // namespace
}  // namespace impetus::test
