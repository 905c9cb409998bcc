#include "cloth/cloth_mesh.h"

namespace impetus {

ClothMesh make_grid_cloth(const std::array<double, 2>& size, const std::array<int, 2>& resolution,
                          const Vec3& center, const Quat& orientation) {
  ClothMesh mesh;
  const int nx = resolution[0];
  const int ny = resolution[1];
  mesh.vertices.reserve(static_cast<size_t>(nx + 1) * static_cast<size_t>(ny + 1));
  for (int j = 0; j <= ny; ++j) {
    for (int i = 0; i <= nx; ++i) {
      Vec3 local(size[0] * (static_cast<double>(i) / nx - 0.5),
                 size[1] * (static_cast<double>(j) / ny - 0.5), 0.0);
      mesh.vertices.push_back(orientation * local + center);
    }
  }
  auto index = [nx](int i, int j) { return j * (nx + 1) + i; };
  mesh.triangles.reserve(static_cast<size_t>(2 * nx * ny));
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      int v00 = index(i, j), v10 = index(i + 1, j), v01 = index(i, j + 1), v11 = index(i + 1, j + 1);
      if ((i + j) % 2 == 0) {
        mesh.triangles.push_back({v00, v10, v11});
        mesh.triangles.push_back({v00, v11, v01});
      } else {
        mesh.triangles.push_back({v00, v10, v01});
        mesh.triangles.push_back({v10, v11, v01});
      }
    }
  }
  return mesh;
}

}  // namespace impetus
