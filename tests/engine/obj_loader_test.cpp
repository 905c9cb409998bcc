// Wavefront OBJ reader: face forms, relative indices, fan triangulation, ignored statements and
// errors with line numbers. Expected meshes are written out by hand from the input text.
#include "engine/obj_loader.h"

#include <gtest/gtest.h>

#include <sstream>

namespace impetus {
namespace {

ObjLoadResult parse(const std::string& text) {
  std::istringstream in(text);
  return parse_obj(in, "test.obj");
}

void expect_error(const ObjLoadResult& r, const std::string& where, const std::string& problem) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind(where, 0), 0u) << r.error;
  EXPECT_NE(r.error.find(problem), std::string::npos) << r.error;
}

using Tri = std::array<int, 3>;

TEST(ObjLoader, TriangleWithAllCornerForms) {
  ObjLoadResult r = parse(
      "# a comment line\n"
      "mtllib x.mtl\n"
      "o thing\n"
      "v 0 0 0\n"
      "v 1 0 0   # trailing comment\n"
      "v 0 1 0\n"
      "v 0 0 1 1.0\n"       // with w
      "vt 0.5 0.5\n"
      "vn 0 0 1\n"
      "g group\ns 1\nusemtl m\n"
      "f 1 2 3\n"
      "f 1/1 2/1 4/1\n"
      "f 1//1 3//1 4//1\n"
      "f 2/1/1 3/1/1 4/1/1\n");
  ASSERT_TRUE(r.ok()) << r.error;
  const ObjMesh& m = *r.mesh;
  ASSERT_EQ(m.vertices.size(), 4u);
  EXPECT_EQ(m.vertices[1], Vec3(1, 0, 0));
  EXPECT_EQ(m.vertices[3], Vec3(0, 0, 1));
  ASSERT_EQ(m.triangles.size(), 4u);
  EXPECT_EQ(m.triangles[0], (Tri{0, 1, 2}));
  EXPECT_EQ(m.triangles[1], (Tri{0, 1, 3}));
  EXPECT_EQ(m.triangles[2], (Tri{0, 2, 3}));
  EXPECT_EQ(m.triangles[3], (Tri{1, 2, 3}));
  EXPECT_EQ(m.triangle_lines[0], 13);
  EXPECT_EQ(m.triangle_lines[3], 16);
}

TEST(ObjLoader, QuadBecomesTwoTrianglesAndPolygonAFan) {
  ObjLoadResult r = parse(
      "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv -1 0.5 0\n"
      "f 1 2 3 4\n"
      "f 1 2 3 4 5\n");
  ASSERT_TRUE(r.ok()) << r.error;
  const ObjMesh& m = *r.mesh;
  ASSERT_EQ(m.triangles.size(), 5u);
  EXPECT_EQ(m.triangles[0], (Tri{0, 1, 2}));
  EXPECT_EQ(m.triangles[1], (Tri{0, 2, 3}));
  EXPECT_EQ(m.triangles[2], (Tri{0, 1, 2}));
  EXPECT_EQ(m.triangles[3], (Tri{0, 2, 3}));
  EXPECT_EQ(m.triangles[4], (Tri{0, 3, 4}));
  EXPECT_EQ(m.triangle_lines[1], 6);
  EXPECT_EQ(m.triangle_lines[4], 7);
}

TEST(ObjLoader, NegativeIndicesAreRelativeToVerticesSoFar) {
  ObjLoadResult r = parse(
      "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
      "f -3 -2 -1\n"          // 1 2 3
      "v 5 5 5\n"
      "f -1 -3/1 -2//1\n");   // 4 2 3
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mesh->triangles.size(), 2u);
  EXPECT_EQ(r.mesh->triangles[0], (Tri{0, 1, 2}));
  EXPECT_EQ(r.mesh->triangles[1], (Tri{3, 1, 2}));
}

TEST(ObjLoader, ForwardReferenceCrlfAndContinuation) {
  ObjLoadResult r = parse("f 1 2 \\\r\n 3\r\nv 0 0 0\r\nv 1 0 0\r\nv 0 1 +0.5\r\n");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mesh->triangles.size(), 1u);
  EXPECT_EQ(r.mesh->triangles[0], (Tri{0, 1, 2}));
  EXPECT_EQ(r.mesh->vertices[2], Vec3(0, 1, 0.5));
  EXPECT_EQ(r.mesh->triangle_lines[0], 1);
}

TEST(ObjLoader, IndexOutOfRangeNamesTheLine) {
  expect_error(parse("v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 4\n"), "test.obj:5:", "out of range");
  expect_error(parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n"), "test.obj:4:", "-4");
  expect_error(parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n"), "test.obj:4:", "index 0");
}

TEST(ObjLoader, MalformedStatementsNameTheLine) {
  expect_error(parse("v 0 0 0\nv 1 zero 0\n"), "test.obj:2:", "bad vertex coordinate 'zero'");
  expect_error(parse("v 0 0\n"), "test.obj:1:", "3 coordinates");
  expect_error(parse("v 0 0 0\nv 1 0 0\nf 1 2\n"), "test.obj:3:", "at least 3 corners");
  expect_error(parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x/1\n"), "test.obj:4:", "bad face corner");
  expect_error(parse("v 0 0 0\ncurv 0 1 2\n"), "test.obj:2:", "unknown statement 'curv'");
  expect_error(parse("v 1e999 0 0\n"), "test.obj:1:", "finite");
  expect_error(parse("# nothing\n"), "test.obj:", "no vertices");
}

TEST(ObjLoader, MissingFile) {
  ObjLoadResult r = load_obj_file("/nonexistent/dir/none.obj");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("/nonexistent/dir/none.obj"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("cannot open"), std::string::npos) << r.error;
}

TEST(ObjLoader, RepositoryMeshesLoad) {
  ObjLoadResult gem = load_obj_file(std::string(IMPETUS_SOURCE_DIR) + "/scenes/meshes/gem.obj");
  ASSERT_TRUE(gem.ok()) << gem.error;
  EXPECT_EQ(gem.mesh->vertices.size(), 12u);  // an icosahedron
  EXPECT_EQ(gem.mesh->triangles.size(), 20u);
  for (const Vec3& v : gem.mesh->vertices) EXPECT_NEAR(v.norm(), 0.15, 1e-8);

  ObjLoadResult terrain =
      load_obj_file(std::string(IMPETUS_SOURCE_DIR) + "/scenes/meshes/terrain.obj");
  ASSERT_TRUE(terrain.ok()) << terrain.error;
  EXPECT_EQ(terrain.mesh->vertices.size(), 15u * 15u);
  EXPECT_EQ(terrain.mesh->triangles.size(), 2u * 14u * 14u);
  // A heightfield seen from above: every triangle faces up (CCW in x-y).
  for (const std::array<int, 3>& t : terrain.mesh->triangles) {
    const std::vector<Vec3>& v = terrain.mesh->vertices;
    Vec3 n = (v[t[1]] - v[t[0]]).cross(v[t[2]] - v[t[0]]);
    EXPECT_GT(n.z(), 0);
  }
}

}  // namespace
}  // namespace impetus
