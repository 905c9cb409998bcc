// The OBJ writer: vertices in cloth order, then 1-based faces, values round-trip exactly.
#include <gtest/gtest.h>

#include <sstream>

#include "cloth/cloth_mesh.h"
#include "cloth/cloth_obj.h"

namespace impetus {
namespace {

TEST(ClothObj, WritesVerticesThenFacesAndRoundTrips) {
  ClothMesh mesh = make_grid_cloth({2, 1}, {3, 2}, Vec3(0.1, 0.2, 1.0 / 3.0),
                                   Quat(Eigen::AngleAxisd(0.3, Vec3::UnitZ())));
  std::ostringstream out;
  write_cloth_obj(out, mesh.vertices, mesh.triangles);
  std::istringstream in(out.str());
  std::string tag;
  size_t v = 0, f = 0;
  bool faces_started = false;
  while (in >> tag) {
    if (tag == "v") {
      ASSERT_FALSE(faces_started) << "a vertex after the faces";
      Vec3 p;
      in >> p.x() >> p.y() >> p.z();
      ASSERT_LT(v, mesh.vertices.size());
      EXPECT_EQ(p, mesh.vertices[v]) << v;
      ++v;
    } else if (tag == "f") {
      faces_started = true;
      int a, b, c;
      in >> a >> b >> c;
      ASSERT_LT(f, mesh.triangles.size());
      EXPECT_EQ(a - 1, mesh.triangles[f][0]);
      EXPECT_EQ(b - 1, mesh.triangles[f][1]);
      EXPECT_EQ(c - 1, mesh.triangles[f][2]);
      ++f;
    } else {
      FAIL() << "unexpected statement " << tag;
    }
  }
  EXPECT_EQ(v, mesh.vertices.size());
  EXPECT_EQ(f, mesh.triangles.size());
}

}  // namespace
}  // namespace impetus
