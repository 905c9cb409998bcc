#include "collision/phong/convolution_search.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace impetus {
namespace {

// The Phong projection accepts barycentric coordinates down to −1e-7 (phong_projection.h), so
// a returned point may lie outside its triangle by up to that times the sum of the edges; keys
// are lowered by ten times as much, relative to the longest possible facet edge.
constexpr double kMarginRelative = 1e-6;
// Extra angle allowed in the node caps' test, beyond the convolution's angular tolerance.
constexpr double kCapMargin = 2 * kConvolutionAngleTolerance + 1e-12;

// Closest point of triangle (p0, p1, p2) to the origin: Voronoi regions of the vertices, edges
// and face, tested in turn.
double triangle_distance_to_origin(const Vec3& p0, const Vec3& p1, const Vec3& p2) {
  const Vec3 e1 = p1 - p0, e2 = p2 - p0, w0 = -p0;
  const double d1 = e1.dot(w0), d2 = e2.dot(w0);
  if (d1 <= 0 && d2 <= 0) return p0.norm();
  const Vec3 w1 = -p1;
  const double d3 = e1.dot(w1), d4 = e2.dot(w1);
  if (d3 >= 0 && d4 <= d3) return p1.norm();
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return (p0 + (d1 / (d1 - d3)) * e1).norm();
  const Vec3 w2 = -p2;
  const double d5 = e1.dot(w2), d6 = e2.dot(w2);
  if (d6 >= 0 && d5 <= d6) return p2.norm();
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return (p0 + (d2 / (d2 - d6)) * e2).norm();
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    return (p1 + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (p2 - p1)).norm();
  }
  const double denom = 1.0 / (va + vb + vc);
  return (p0 + (vb * denom) * e1 + (vc * denom) * e2).norm();
}

// Distance from point p to box (0 inside).
double point_box_distance(const Vec3& p, const Aabb& box) {
  const Vec3 q = p.cwiseMax(box.min).cwiseMin(box.max);
  return (p - q).norm();
}

// Widest Gauss cap among the kinds still allowed, on A's side or B's.
double widest_cap(const ConvolutionBvh::Node& n, int kinds, bool a_side) {
  // Bits: 1 = B faces / A vertices, 2 = B vertices / A faces, 4 = edges.
  double r = 0;
  if (kinds & 1) r = std::max(r, n.caps[a_side ? ConvolutionBvh::kVertices : ConvolutionBvh::kFaces].radius);
  if (kinds & 2) r = std::max(r, n.caps[a_side ? ConvolutionBvh::kFaces : ConvolutionBvh::kVertices].radius);
  if (kinds & 4) r = std::max(r, n.caps[ConvolutionBvh::kEdges].radius);
  return r;
}

// Which node of an internal pair to split: the one whose Gauss caps are wider (the caps, not
// the boxes, do most of the culling when the meshes interpenetrate), then the larger one.
bool split_a(const ConvolutionBvh::Node& na, const ConvolutionBvh::Node& nb, int kinds) {
  const double ca = widest_cap(na, kinds, true), cb = widest_cap(nb, kinds, false);
  if (ca != cb) return ca > cb;
  return na.radius >= nb.radius;
}

}  // namespace

double facet_distance(const ConvolutionFacet& f) {
  double d = triangle_distance_to_origin(f.points[0], f.points[1], f.points[2]);
  if (f.corners == 4) {
    d = std::min(d, triangle_distance_to_origin(f.points[0], f.points[2], f.points[3]));
  }
  return d;
}

ConvolutionSearch::ConvolutionSearch(const ConvolutionPair& pair, double limit)
    : pair_(pair), tree_a_(pair.a->features), tree_b_(pair.b->features), limit_(limit) {
  // A facet's edges are edges of A or B (or differences of a face's vertices, no longer).
  margin_ = kMarginRelative * 2 * (pair.a->max_edge + pair.b->max_edge);
  b_centre_.resize(tree_b_.nodes.size());
  b_cap_axis_.resize(tree_b_.nodes.size());
  for (std::size_t i = 0; i < tree_b_.nodes.size(); ++i) {
    b_centre_[i] = pair.b_pose.apply(tree_b_.nodes[i].centre);
    for (int kind = 0; kind < 3; ++kind) {
      b_cap_axis_[i][kind] = pair.b_rotation * tree_b_.nodes[i].caps[kind].axis;
    }
  }
  collected_ = std::isfinite(limit_);
  if (!tree_a_.nodes.empty() && !tree_b_.nodes.empty()) {
    push_nodes(0, 0, kFaceVertex | kVertexFace | kEdgeEdge,
               -std::numeric_limits<double>::infinity());
  }
  if (!collected_) return;
  // Depth-first: expand every node pair within the limit; facets land in order_.
  ConvolutionFacet facet;
  double key = 0;
  while (!stack_.empty()) step(&facet, &key);
  std::sort(order_.begin(), order_.end(), [](const Entry& x, const Entry& y) {
    return x.key < y.key || (x.key == y.key && x.sequence < y.sequence);
  });
}

void ConvolutionSearch::push(const Entry& entry) {
  if (!collected_) {
    heap_.push(entry);
  } else if (entry.a < 0) {
    order_.push_back(entry);
  } else {
    stack_.push_back(entry);
  }
}

void ConvolutionSearch::push_nodes(int a, int b, int kinds, double parent_key) {
  const ConvolutionBvh::Node& na = tree_a_.nodes[a];
  const ConvolutionBvh::Node& nb = tree_b_.nodes[b];
  // Gauss caps: a facet needs a direction ν in its B feature's cap with −ν in its A feature's
  // cap (convolution_mesh.h), so B's cap of one kind must meet A's negated cap of the matching
  // kind. Caps of a node hold those of its children: a kind ruled out stays out below.
  auto meet = [&](int kind_b, int kind_a) {
    const GaussCap& cb = nb.caps[kind_b];
    const GaussCap& ca = na.caps[kind_a];
    if (ca.radius < 0 || cb.radius < 0) return false;
    if (ca.radius + cb.radius + kCapMargin >= kPi) return true;
    // cos(ρa + ρb) by the addition formula; the margin covers the tolerance (cos is
    // 1-Lipschitz).
    const double cos_sum = ca.cos * cb.cos - ca.sin * cb.sin;
    return -b_cap_axis_[b][kind_b].dot(ca.axis) >= cos_sum - kCapMargin;
  };
  constexpr int kF = ConvolutionBvh::kFaces, kV = ConvolutionBvh::kVertices;
  constexpr int kE = ConvolutionBvh::kEdges;
  if ((kinds & kFaceVertex) && !meet(kF, kV)) kinds &= ~kFaceVertex;
  if ((kinds & kVertexFace) && !meet(kV, kF)) kinds &= ~kVertexFace;
  if ((kinds & kEdgeEdge) && !meet(kE, kE)) kinds &= ~kEdgeEdge;
  if (kinds == 0) return;
  // The parent's bound holds for the child too (its volumes hold the child's), and may be
  // tighter: a child's sphere is not inside its parent's.
  const double key =
      std::max(parent_key, point_box_distance(b_centre_[b], na.box) - nb.radius - margin_);
  if (key > limit_) return;
  push({key, sequence_++, a, b, kinds});
}

void ConvolutionSearch::push_facet(const ConvolutionFacet& facet) {
  const double key = facet_distance(facet) - margin_;
  if (key > limit_) return;
  ++facets_built_;
  pending_.push_back(facet);
  push({key, sequence_++, -1, static_cast<int>(pending_.size()) - 1, 0});
}

void ConvolutionSearch::expand_leaves(int a, int b, int kinds) {
  const ConvolutionBvh::Node& na = tree_a_.nodes[a];
  const ConvolutionBvh::Node& nb = tree_b_.nodes[b];
  ConvolutionFacet facet;
  if (kinds & kFaceVertex) {
    for (int i = nb.face_first; i < nb.face_first + nb.face_count; ++i) {
      for (int j = na.vertex_first; j < na.vertex_first + na.vertex_count; ++j) {
        if (face_vertex_facet(pair_, tree_b_.faces[i], tree_a_.vertices[j], &facet)) {
          push_facet(facet);
        }
      }
    }
  }
  if (kinds & kVertexFace) {
    for (int i = nb.vertex_first; i < nb.vertex_first + nb.vertex_count; ++i) {
      for (int j = na.face_first; j < na.face_first + na.face_count; ++j) {
        if (vertex_face_facet(pair_, tree_b_.vertices[i], tree_a_.faces[j], &facet)) {
          push_facet(facet);
        }
      }
    }
  }
  if (kinds & kEdgeEdge) {
    for (int i = nb.edge_first; i < nb.edge_first + nb.edge_count; ++i) {
      for (int j = na.edge_first; j < na.edge_first + na.edge_count; ++j) {
        if (edge_edge_facet(pair_, tree_b_.edges[i], tree_a_.edges[j], &facet)) {
          push_facet(facet);
        }
      }
    }
  }
}

bool ConvolutionSearch::step(ConvolutionFacet* facet, double* key) {
  Entry top;
  if (!collected_) {
    top = heap_.top();
    heap_.pop();
  } else if (!stack_.empty()) {  // still collecting (constructor)
    top = stack_.back();
    stack_.pop_back();
  } else {
    top = order_[next_++];
  }
  if (top.a < 0) {
    *facet = pending_[top.b];
    *key = top.key;
    return true;
  }
  const ConvolutionBvh::Node& na = tree_a_.nodes[top.a];
  const ConvolutionBvh::Node& nb = tree_b_.nodes[top.b];
  const bool leaf_a = na.left < 0, leaf_b = nb.left < 0;
  if (leaf_a && leaf_b) {
    expand_leaves(top.a, top.b, top.kinds);
  } else if (leaf_b || (!leaf_a && split_a(na, nb, top.kinds))) {
    push_nodes(na.left, top.b, top.kinds, top.key);
    push_nodes(na.right, top.b, top.kinds, top.key);
  } else {
    push_nodes(top.a, nb.left, top.kinds, top.key);
    push_nodes(top.a, nb.right, top.kinds, top.key);
  }
  return false;
}

}  // namespace impetus
