#include "tools/peers/bullet/scene_probe.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "cloth/cloth_mesh.h"
#include "collision/distance/point_shape_distance.h"
#include "cloth/triangle_intersection.h"

namespace impetus::peers {
namespace {

Pose initial_pose(const BodyDef& body) { return Pose{body.position, body.orientation}; }

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

}  // namespace

void cloth_initial_mesh(const SceneClothDef& cloth, std::vector<Vec3>& vertices,
                        std::vector<std::array<int, 3>>& triangles) {
  if (cloth.is_grid) {
    ClothMesh mesh = make_grid_cloth(cloth.grid_size, cloth.grid_resolution, cloth.grid_center,
                                     cloth.grid_orientation);
    vertices = mesh.vertices;
    triangles = mesh.triangles;
  } else {
    vertices = cloth.mesh_vertices;
    triangles = cloth.mesh_triangles;
  }
}

SceneProbe::SceneProbe(const SceneDef& scene) : scene_(&scene), name_(scene.name) {
  const std::vector<BodyDef>& bodies = scene.bodies;
  for (int i = 0; i < static_cast<int>(bodies.size()); ++i) {
    if (bodies[i].motion != MotionType::Dynamic) continue;
    if (top_body_ < 0 || bodies[i].position.z() > bodies[top_body_].position.z()) top_body_ = i;
  }
  if (top_body_ >= 0) top_start_ = bodies[top_body_].position;

  for (const SceneJointDef& j : scene.joints) {
    JointAnchors a;
    a.body_a = j.body_a;
    a.body_b = j.body_b;
    a.local_a = initial_pose(bodies[j.body_a]).inverse_apply(j.anchor);
    a.local_b = j.body_b < 0 ? j.anchor : initial_pose(bodies[j.body_b]).inverse_apply(j.anchor);
    joints_.push_back(a);
  }

  if (starts_with(name_, "newton_cradle")) {
    for (int i = 0; i < static_cast<int>(bodies.size()); ++i) {
      if (bodies[i].motion != MotionType::Dynamic) continue;
      if (first_ball_ < 0) first_ball_ = i;
      last_ball_ = i;
    }
    if (first_ball_ >= 0 && last_ball_ != first_ball_) {
      Vec3 row = bodies[last_ball_].position - bodies[first_ball_].position;
      row.z() = 0;  // along the row, horizontally
      row_direction_ = row.norm() > 0 ? Vec3(row.normalized()) : Vec3(Vec3::UnitX());
      // Pendulum length from the last ball's joint (or 1 m): the second impact comes about
      // 3/4 of a period after release, the first at 1/4, so 0.6 periods holds only the first.
      double length = 1.0;
      for (const JointAnchors& j : joints_) {
        if (j.body_a == last_ball_) length = j.local_a.norm();
      }
      double g = std::max(scene.world.gravity.norm(), 1e-9);
      cradle_window_ = 0.6 * 2.0 * kPi * std::sqrt(length / g);
      Vec3 up = -scene.world.gravity / g;
      first_ball_height_ = (bodies[first_ball_].position - bodies[last_ball_].position).dot(up);
    }
  }

  for (const SceneClothDef& cloth : scene.cloths) {
    ClothTrack track;
    std::vector<Vec3> x0;
    cloth_initial_mesh(cloth, x0, track.triangles);
    std::set<std::array<int, 2>> edges;
    for (const std::array<int, 3>& t : track.triangles) {
      for (int k = 0; k < 3; ++k) {
        int a = t[k];
        int b = t[(k + 1) % 3];
        edges.insert({std::min(a, b), std::max(a, b)});
      }
    }
    track.edges.assign(edges.begin(), edges.end());
    for (const std::array<int, 2>& e : track.edges) {
      track.rest_lengths.push_back((x0[e[0]] - x0[e[1]]).norm());
    }
    track.last_positions = x0;
    cloths_.push_back(std::move(track));
  }
}

void SceneProbe::observe(double time, const std::vector<ProbeBodyState>& states,
                         double penetration) {
  max_penetration_ = std::max(max_penetration_, penetration);
  if (top_body_ >= 0) {
    top_drift_ = std::max(top_drift_, (states[top_body_].pose.position - top_start_).norm());
  }
  for (const JointAnchors& j : joints_) {
    Vec3 pa = states[j.body_a].pose.apply(j.local_a);
    Vec3 pb = j.body_b < 0 ? j.local_b : states[j.body_b].pose.apply(j.local_b);
    joint_error_max_ = std::max(joint_error_max_, (pa - pb).norm());
  }
  if (first_ball_ >= 0 && last_ball_ != first_ball_ && time <= cradle_window_) {
    first_ball_peak_ =
        std::max(first_ball_peak_, states[first_ball_].linear_velocity.dot(row_direction_));
    last_ball_peak_ =
        std::max(last_ball_peak_, states[last_ball_].linear_velocity.dot(row_direction_));
    Vec3 up = -scene_->world.gravity.normalized();
    last_ball_rise_ = std::max(
        last_ball_rise_,
        (states[last_ball_].pose.position - scene_->bodies[last_ball_].position).dot(up));
  }
}

void SceneProbe::observe_cloth(int index, const std::vector<Vec3>& positions) {
  ClothTrack& track = cloths_[index];
  double deepest = 0;
  const std::vector<BodyDef>& bodies = scene_->bodies;
  // Cloth scenes hold only static rigid bodies, so their scene poses are their poses now.
  for (const BodyDef& body : bodies) {
    if (body.motion != MotionType::Static) continue;
    Pose pose = initial_pose(body);
    for (const Vec3& x : positions) {
      ShapeProximity p;
      if (point_shape_proximity(body.shape, pose, x, x, 0.0, p)) {
        deepest = std::max(deepest, -p.distance);
      }
    }
  }
  track.max_rigid_penetration = std::max(track.max_rigid_penetration, deepest);
  track.last_positions = positions;
  track.observed = true;
}

double SceneProbe::momentum_transfer() const {
  return first_ball_height_ > 0 ? std::sqrt(last_ball_rise_ / first_ball_height_) : 0.0;
}

double SceneProbe::peak_speed_ratio() const {
  return first_ball_peak_ > 0 ? last_ball_peak_ / first_ball_peak_ : 0.0;
}

void SceneProbe::add_figures(const std::string& prefix,
                             std::map<std::string, double>& figures) const {
  if (cloths_.empty()) figures[prefix + ".max_penetration"] = max_penetration_;
  if (starts_with(name_, "stack") && top_body_ >= 0) {
    figures[prefix + ".top_drift_mm"] = 1e3 * top_drift_;
  }
  if (!joints_.empty()) figures[prefix + ".joint_error_max_mm"] = 1e3 * joint_error_max_;
  if (first_ball_ >= 0 && last_ball_ != first_ball_) {
    figures[prefix + ".momentum_transfer"] = momentum_transfer();
    figures[prefix + ".peak_speed_ratio"] = peak_speed_ratio();
  }
  double cloth_penetration = 0;
  for (std::size_t c = 0; c < cloths_.size(); ++c) {
    const ClothTrack& track = cloths_[c];
    if (!track.observed) continue;
    std::string p = cloths_.size() == 1 ? prefix : prefix + "." + scene_->cloths[c].name;
    figures[p + ".self_intersections_end"] =
        count_cloth_self_intersections(track.last_positions, track.triangles);
    double strain = 0;
    for (std::size_t e = 0; e < track.edges.size(); ++e) {
      const std::array<int, 2>& edge = track.edges[e];
      double length = (track.last_positions[edge[0]] - track.last_positions[edge[1]]).norm();
      strain = std::max(strain, length / track.rest_lengths[e] - 1.0);
    }
    figures[p + ".stretch_max_end"] = strain;
    cloth_penetration = std::max(cloth_penetration, track.max_rigid_penetration);
  }
  if (!cloths_.empty()) {
    figures[prefix + ".max_penetration"] = std::max(max_penetration_, cloth_penetration);
  }
}

int count_cloth_self_intersections(const std::vector<Vec3>& x,
                                   const std::vector<std::array<int, 3>>& triangles) {
  const int n = static_cast<int>(triangles.size());
  std::vector<Vec3> lo(n);
  std::vector<Vec3> hi(n);
  for (int t = 0; t < n; ++t) {
    const std::array<int, 3>& tri = triangles[t];
    lo[t] = x[tri[0]].cwiseMin(x[tri[1]]).cwiseMin(x[tri[2]]);
    hi[t] = x[tri[0]].cwiseMax(x[tri[1]]).cwiseMax(x[tri[2]]);
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return lo[a].x() < lo[b].x() || (lo[a].x() == lo[b].x() && a < b);
  });
  int count = 0;
  for (int p = 0; p < n; ++p) {
    const int s = order[p];
    for (int q = p + 1; q < n; ++q) {
      const int t = order[q];
      // Closed boxes: touching triangles intersect, so only a strict gap prunes a pair.
      if (lo[t].x() > hi[s].x()) break;
      if (lo[t].y() > hi[s].y() || lo[s].y() > hi[t].y() || lo[t].z() > hi[s].z() ||
          lo[s].z() > hi[t].z()) {
        continue;
      }
      const std::array<int, 3>& a = triangles[s];
      const std::array<int, 3>& b = triangles[t];
      bool shared = false;
      for (int i : a)
        for (int j : b) shared = shared || i == j;
      if (shared) continue;
      if (triangles_intersect(x[a[0]], x[a[1]], x[a[2]], x[b[0]], x[b[1]], x[b[2]])) ++count;
    }
  }
  return count;
}

}  // namespace impetus::peers
