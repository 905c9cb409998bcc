#include "collision/phong/convolution_bvh.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "collision/phong/convolution_mesh.h"

namespace impetus {
namespace {

constexpr int kLeafFaces = 4;
// Added to every cap radius, so that round-off in the angles cannot leave a feature's cap
// sticking out of its node's cap [rad].
constexpr double kCapSlack = 1e-12;

double angle_between(const Vec3& x, const Vec3& y) {
  return std::atan2(x.cross(y).norm(), x.dot(y));
}

// A cap holding the given caps (the empty ones ignored): axis along the sum of their axes.
GaussCap bounding_cap(const std::vector<GaussCap>& caps) {
  Vec3 sum = Vec3::Zero();
  bool any = false;
  for (const GaussCap& c : caps) {
    if (c.radius < 0) continue;
    if (c.radius >= kPi) {
      GaussCap whole;
      whole.radius = kPi;
      return whole;
    }
    sum += c.axis;
    any = true;
  }
  GaussCap out;
  if (!any) return out;
  if (!(sum.norm() > 1e-6)) {
    out.radius = kPi;
    return out;
  }
  out.axis = sum.normalized();
  out.radius = 0;
  for (const GaussCap& c : caps) {
    if (c.radius >= 0) out.radius = std::max(out.radius, angle_between(out.axis, c.axis) + c.radius);
  }
  out.radius = std::min(out.radius + kCapSlack, kPi);
  out.cos = std::cos(out.radius);
  out.sin = std::sin(out.radius);
  return out;
}

GaussCap point_cap(const Vec3& axis, double radius) {
  GaussCap c;
  c.axis = axis;
  c.radius = radius;
  return c;
}

struct Builder {
  const ConvolutionMesh& m;
  ConvolutionBvh& out;
  std::vector<Vec3> centroid;
  std::vector<std::vector<int>> owned_vertices, owned_edges;  // by face

  int build(std::vector<int>& faces, int begin, int end) {
    const int index = static_cast<int>(out.nodes.size());
    out.nodes.emplace_back();
    Aabb box, centres;
    const std::vector<Vec3>& x = m.mesh->vertices;
    for (int k = begin; k < end; ++k) {
      for (int v : m.mesh->triangles[faces[k]]) box.grow(x[v]);
      centres.grow(centroid[faces[k]]);
    }
    if (end - begin <= kLeafFaces) {
      ConvolutionBvh::Node node;
      node.face_first = static_cast<int>(out.faces.size());
      node.vertex_first = static_cast<int>(out.vertices.size());
      node.edge_first = static_cast<int>(out.edges.size());
      std::array<std::vector<GaussCap>, 3> caps;
      for (int k = begin; k < end; ++k) {
        const int f = faces[k];
        out.faces.push_back(f);
        if (m.face_normal[f].squaredNorm() > 0) {
          caps[ConvolutionBvh::kFaces].push_back(point_cap(m.face_normal[f], 0.0));
        }
        for (int v : owned_vertices[f]) {
          out.vertices.push_back(v);
          if (m.extremal_radius[v] >= 0) {
            caps[ConvolutionBvh::kVertices].push_back(
                point_cap(m.extremal_axis[v], m.extremal_radius[v]));
          }
        }
        for (int e : owned_edges[f]) {
          out.edges.push_back(e);
          if (m.arc_radius[e] >= 0) {
            caps[ConvolutionBvh::kEdges].push_back(point_cap(m.arc_axis[e], m.arc_radius[e]));
          }
        }
      }
      node.face_count = static_cast<int>(out.faces.size()) - node.face_first;
      node.vertex_count = static_cast<int>(out.vertices.size()) - node.vertex_first;
      node.edge_count = static_cast<int>(out.edges.size()) - node.edge_first;
      for (int kind = 0; kind < 3; ++kind) node.caps[kind] = bounding_cap(caps[kind]);
      node.box = box;
      out.nodes[index] = node;
    } else {
      // Median split of the face centroids along the box's longest axis (ties by index, so the
      // tree is the same on every run).
      const Vec3 extent = centres.extent();
      int axis = 0;
      if (extent.y() > extent[axis]) axis = 1;
      if (extent.z() > extent[axis]) axis = 2;
      const int mid = begin + (end - begin) / 2;
      std::nth_element(faces.begin() + begin, faces.begin() + mid, faces.begin() + end,
                       [&](int p, int q) {
                         const double cp = centroid[p][axis], cq = centroid[q][axis];
                         return cp < cq || (cp == cq && p < q);
                       });
      const int left = build(faces, begin, mid);
      const int right = build(faces, mid, end);
      ConvolutionBvh::Node& node = out.nodes[index];
      node.box = box;
      node.left = left;
      node.right = right;
      for (int kind = 0; kind < 3; ++kind) {
        node.caps[kind] = bounding_cap({out.nodes[left].caps[kind], out.nodes[right].caps[kind]});
      }
    }
    ConvolutionBvh::Node& node = out.nodes[index];
    node.centre = node.box.center();
    node.radius = 0.5 * node.box.extent().norm();
    return index;
  }
};

}  // namespace

ConvolutionBvh build_convolution_bvh(const ConvolutionMesh& m) {
  ConvolutionBvh out;
  const std::size_t nf = m.mesh->triangles.size();
  if (nf == 0) return out;
  Builder builder{m, out, {}, {}, {}};
  builder.centroid.resize(nf);
  for (std::size_t f = 0; f < nf; ++f) {
    const std::array<int, 3>& t = m.mesh->triangles[f];
    builder.centroid[f] =
        (m.mesh->vertices[t[0]] + m.mesh->vertices[t[1]] + m.mesh->vertices[t[2]]) / 3.0;
  }
  builder.owned_vertices.resize(nf);
  builder.owned_edges.resize(nf);
  for (std::size_t v = 0; v + 1 < m.face_start.size(); ++v) {
    if (m.face_start[v] < m.face_start[v + 1]) {
      builder.owned_vertices[m.vertex_faces[m.face_start[v]]].push_back(static_cast<int>(v));
    }
  }
  for (std::size_t e = 0; e < m.edges.size(); ++e) {
    builder.owned_edges[m.edges[e].f0].push_back(static_cast<int>(e));
  }
  std::vector<int> faces(nf);
  for (std::size_t f = 0; f < nf; ++f) faces[f] = static_cast<int>(f);
  out.nodes.reserve(2 * nf / kLeafFaces + 2);
  builder.build(faces, 0, static_cast<int>(nf));
  return out;
}

}  // namespace impetus
