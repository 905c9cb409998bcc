// `impetus query`: the document level (stdin, invalid documents) and the `distance` type against
// closed forms (moved here from cli_test.cpp).
#include <cmath>
#include <string>

#include "tests/tools/cli_query_test_util.h"

namespace impetus::test {
namespace {

TEST_F(CliQueryTest, QueryDistanceMatchesClosedFormAndReportsBadSlots) {
  const json queries = json::parse(R"({
    "format": "impetus-query/1",
    "queries": [
      { "id": "apart", "type": "distance",
        "a": { "shape": { "type": "sphere", "radius": 0.5 }, "position": [0, 0, 0] },
        "b": { "shape": { "type": "sphere", "radius": 0.25 }, "position": [2, 1, 0],
               "orientation": [0, 0, 1, 0] } },
      { "id": "bad", "type": "distance",
        "a": { "shape": { "type": "sphere", "radius": -1 } },
        "b": { "shape": { "type": "sphere", "radius": 1 } } },
      { "id": 7, "type": "mcd", "a": {}, "b": {} },
      { "id": "overlap", "type": "distance",
        "a": { "shape": { "type": "sphere", "radius": 1 }, "position": [1, 1, 1] },
        "b": { "shape": { "type": "sphere", "radius": 1 }, "position": [1, 1, 2.5] } }
    ]
  })");
  write_text(path("q.json"), queries.dump(2));
  CommandResult r = cli("query " + quoted("q.json"));
  EXPECT_EQ(r.exit_code, 2);
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc.at("format"), "impetus-query-result/1");
  const json& results = doc.at("results");
  ASSERT_EQ(results.size(), 4u);

  // Separated spheres: d = |c_b − c_a| − r_a − r_b, witnesses on the centre line.
  const json& apart = results[0];
  EXPECT_EQ(apart.at("id"), "apart");
  const double len = std::sqrt(5.0);
  const double n[3] = {2 / len, 1 / len, 0};
  EXPECT_NEAR(apart.at("distance").get<double>(), len - 0.75, 1e-12);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(apart.at("normal")[k].get<double>(), n[k], 1e-12);
    EXPECT_NEAR(apart.at("point_a")[k].get<double>(), 0.5 * n[k], 1e-12);
    const double cb[3] = {2, 1, 0};
    EXPECT_NEAR(apart.at("point_b")[k].get<double>(), cb[k] - 0.25 * n[k], 1e-12);
  }

  EXPECT_EQ(results[1].at("id"), "bad");
  EXPECT_CONTAINS(results[1].at("error").get<std::string>(), "queries[1].a.shape.radius");
  EXPECT_EQ(results[2].at("id"), 7);
  EXPECT_CONTAINS(results[2].at("error").get<std::string>(), "queries[2].a: missing key 'shape'");

  // Overlapping spheres: negative distance, and point_b − point_a = distance · normal.
  const json& overlap = results[3];
  EXPECT_EQ(overlap.at("id"), "overlap");
  EXPECT_NEAR(overlap.at("distance").get<double>(), -0.5, 1e-12);
  EXPECT_NEAR(overlap.at("normal")[2].get<double>(), 1.0, 1e-12);
  for (int k = 0; k < 3; ++k) {
    const double diff =
        overlap.at("point_b")[k].get<double>() - overlap.at("point_a")[k].get<double>();
    EXPECT_NEAR(diff, -0.5 * overlap.at("normal")[k].get<double>(), 1e-12);
  }
  EXPECT_FALSE(results[0].contains("error"));
  EXPECT_FALSE(results[3].contains("error"));
}

TEST_F(CliQueryTest, QueryFromStdinAndInvalidDocuments) {
  write_text(path("q.json"), R"({"format": "impetus-query/1", "queries": [
    {"id": 1, "type": "distance",
     "a": {"shape": {"type": "box", "half_extents": [1, 1, 1]}},
     "b": {"shape": {"type": "plane", "normal": [0, 0, 1], "offset": -3}}}]})");
  CommandResult r = cli("query -", path("q.json").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc.at("results").size(), 1u);
  // The box's lowest face (z = −1) is 2 above the plane's surface (z = −3, solid below).
  EXPECT_NEAR(doc.at("results")[0].at("distance").get<double>(), 2.0, 1e-12);

  write_text(path("notjson.json"), "{\"format\": ");
  write_text(path("wrongformat.json"), R"({"format": "impetus-scene/1", "queries": []})");
  for (const char* file : {"notjson.json", "wrongformat.json", "absent.json"}) {
    CommandResult bad = cli(std::string("query ") + quoted(file));
    EXPECT_EQ(bad.exit_code, 2) << file;
    EXPECT_TRUE(bad.out.empty()) << bad.out;
    EXPECT_EQ(count_lines(bad.err), 1) << bad.err;
    EXPECT_CONTAINS(bad.err, file);
  }
}

}  // namespace
}  // namespace impetus::test
