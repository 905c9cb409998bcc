// `impetus query` type `phong_distance` against closed forms: two boxes stacked along a face
// normal (centred, so the interpolated normal field is symmetric and the direction is the face
// normal) separated and overlapping, as box, convex and mesh shapes, under a common rotation,
// against the Euclidean `distance` query, and with the roles swapped.
#include <array>
#include <cmath>
#include <string>

#include "tests/tools/cli_query_test_util.h"

namespace impetus::test {
namespace {

json box_shape(const V3& h) { return {{"type", "box"}, {"half_extents", vjson(h)}}; }

json box_vertices(const V3& h) {
  json vertices = json::array();
  for (int k = 0; k < 8; ++k) {
    vertices.push_back({(k & 1) ? h[0] : -h[0], (k & 2) ? h[1] : -h[1], (k & 4) ? h[2] : -h[2]});
  }
  return vertices;
}

json convex_shape(const V3& h) { return {{"type", "convex"}, {"vertices", box_vertices(h)}}; }

json mesh_shape(const V3& h) {
  const json triangles = json::parse(R"([[0,4,6],[0,6,2],[1,3,7],[1,7,5],[0,1,5],[0,5,4],
                                          [2,6,7],[2,7,3],[0,2,3],[0,3,1],[4,5,7],[4,7,6]])");
  return {{"type", "mesh"}, {"vertices", box_vertices(h)}, {"triangles", triangles}};
}

json object(const json& shape, const V3& x, const Q4& q = {1, 0, 0, 0}) {
  return {{"shape", shape}, {"position", vjson(x)},
          {"orientation", json::array({q[0], q[1], q[2], q[3]})}};
}

json query(const std::string& id, const std::string& type, const json& a, const json& b) {
  return {{"id", id}, {"type", type}, {"a", a}, {"b", b}};
}

TEST_F(CliQueryTest, PhongDistanceOfStackedBoxesIsTheFaceGap) {
  // a: half [0.5, 0.5, 0.5] at the origin; b: half [0.3, 0.4, 0.2] centred above it at height
  // z: distance z − 0.7 along +z (separated at z = 1.0: 0.3; overlapping at z = 0.6: −0.1).
  const V3 ha = {0.5, 0.5, 0.5};
  const V3 hb = {0.3, 0.4, 0.2};
  // A common rotation of both boxes (and of b's offset) leaves the distance unchanged and
  // rotates the direction.
  const double c = std::cos(0.35);
  const double s = std::sin(0.35);
  const Q4 q = {c, s * 0.48, s * 0.6, s * 0.64};  // unit: 0.48² + 0.6² + 0.64² = 1
  json queries = json::array();
  for (double z : {1.0, 0.6}) {
    const std::string tag = z > 0.7 ? "sep" : "ovl";
    queries.push_back(query(tag + "_box", "phong_distance", object(box_shape(ha), {0, 0, 0}),
                            object(box_shape(hb), {0, 0, z})));
    queries.push_back(query(tag + "_convex", "phong_distance",
                            object(convex_shape(ha), {0, 0, 0}),
                            object(convex_shape(hb), {0, 0, z})));
    queries.push_back(query(tag + "_mesh", "phong_distance", object(mesh_shape(ha), {0, 0, 0}),
                            object(mesh_shape(hb), {0, 0, z})));
    queries.push_back(query(tag + "_rotated", "phong_distance",
                            object(box_shape(ha), {1, 2, 3}, q),
                            object(box_shape(hb), add3({1, 2, 3}, rotate_by(q, {0, 0, z})), q)));
    queries.push_back(query(tag + "_swapped", "phong_distance", object(box_shape(hb), {0, 0, z}),
                            object(box_shape(ha), {0, 0, 0})));
    json warm = query(tag + "_warm", "phong_distance", object(box_shape(ha), {0, 0, 0}),
                      object(box_shape(hb), {0, 0, z}));
    warm["warm_start"] = {0.1, 0, 1};
    queries.push_back(warm);
    queries.push_back(query(tag + "_euclidean", "distance", object(box_shape(ha), {0, 0, 0}),
                            object(box_shape(hb), {0, 0, z})));
  }
  const json results = run_queries(queries);
  ASSERT_EQ(results.size(), 14u);
  for (int block = 0; block < 2; ++block) {
    const double expected = block == 0 ? 0.3 : -0.1;
    const json* r = &results[7 * block];
    for (int i = 0; i < 6; ++i) {
      SCOPED_TRACE(r[i].dump());
      EXPECT_TRUE(r[i].at("converged").get<bool>());
      EXPECT_NEAR(r[i].at("distance").get<double>(), expected, 1e-9);
      V3 n = {0, 0, 1};
      if (i == 3) n = rotate_by(q, n);
      if (i == 4) n = {0, 0, -1};
      const V3 direction = v3(r[i].at("direction"));
      const V3 point = v3(r[i].at("point"));
      for (int k = 0; k < 3; ++k) {
        // The projection stops at a 1e-9 fixed-point tolerance (PhongDistanceOptions).
        EXPECT_NEAR(direction[k], n[k], 1e-8);
        EXPECT_NEAR(point[k], expected * n[k], 1e-8);
      }
    }
    // The Euclidean distance agrees here (a face normal).
    EXPECT_NEAR(r[6].at("distance").get<double>(), expected, 1e-9);
  }
}

}  // namespace
}  // namespace impetus::test
