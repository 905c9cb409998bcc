#pragma once
// Engine-independent measurements of a benchmark scene, fed with the body states of whichever
// engine runs it (impetus, Bullet, MuJoCo), so that every engine is judged by the same code:
//   top_drift_mm       stack scenes: max ‖p(t) − p(0)‖ of the highest dynamic body at t = 0
//   joint_error_max_mm max over steps and joints of ‖anchor on a − anchor on b‖ (the anchors
//                      are the joint's world anchor at t = 0 fixed in each body's frame)
//   momentum_transfer  newton_cradle: √(h_last / h_first), h_last = the last ball's highest
//                      rise during the first 0.6 pendulum periods (it swings out after the
//                      first impact and peaks at half a period; the second impact comes at 3/4),
//                      h_first = the first ball's release height above the others; for
//                      pendulums this is the last ball's speed after the impact over the first
//                      ball's before it, without the noise of one-step velocity spikes; 1 is
//                      ideal
//   peak_speed_ratio   newton_cradle: the last ball's peak velocity along the row over the
//                      first ball's, both within the same window (sensitive to spikes)
//   max_penetration    deepest rigid overlap reported by the engine after any step [m]
// and, for cloth, at the end of the run: exact self-intersecting non-adjacent triangle pairs,
// the largest edge strain, and the deepest cloth vertex inside a rigid shape.
#include <array>
#include <map>
#include <string>
#include <vector>

#include "collision/base/math.h"
#include "engine/world_def.h"

namespace impetus::peers {

/// One body's state as an engine reports it: body frame pose, centre-of-mass velocity (world).
struct ProbeBodyState {
  Pose pose;
  Vec3 linear_velocity = Vec3::Zero();
};

class SceneProbe {
 public:
  explicit SceneProbe(const SceneDef& scene);

  /// After each step: time since the start, every body's state in scene order (static bodies
  /// included, at their fixed pose), and the engine's deepest rigid overlap now [m].
  void observe(double time, const std::vector<ProbeBodyState>& states, double penetration);
  /// After each step, for cloth `index`: vertex positions in the impetus grid/mesh numbering.
  void observe_cloth(int index, const std::vector<Vec3>& positions);

  /// Adds `<prefix>.max_penetration` and the scene's quality figures.
  void add_figures(const std::string& prefix, std::map<std::string, double>& figures) const;

  double top_drift() const { return top_drift_; }
  double joint_error_max() const { return joint_error_max_; }
  double momentum_transfer() const;
  double peak_speed_ratio() const;

 private:
  struct JointAnchors {
    int body_a = -1;
    int body_b = -1;  // -1: the world
    Vec3 local_a = Vec3::Zero();
    Vec3 local_b = Vec3::Zero();  // world coordinates when body_b = -1
  };
  struct ClothTrack {
    std::vector<std::array<int, 3>> triangles;
    std::vector<std::array<int, 2>> edges;
    std::vector<double> rest_lengths;
    std::vector<Vec3> last_positions;
    double max_rigid_penetration = 0;
    bool observed = false;
  };

  const SceneDef* scene_;
  std::string name_;
  int top_body_ = -1;
  Vec3 top_start_ = Vec3::Zero();
  double top_drift_ = 0;
  std::vector<JointAnchors> joints_;
  double joint_error_max_ = 0;
  double max_penetration_ = 0;
  // newton_cradle
  int first_ball_ = -1;
  int last_ball_ = -1;
  Vec3 row_direction_ = Vec3::UnitX();
  double cradle_window_ = 0;  // s
  double first_ball_peak_ = 0;
  double last_ball_peak_ = 0;
  double first_ball_height_ = 0;  // release height above the last ball's start [m]
  double last_ball_rise_ = 0;     // highest rise of the last ball in the window [m]
  std::vector<ClothTrack> cloths_;
};

/// Exact number of intersecting pairs of triangles that share no vertex (closed triangles,
/// impetus's exact predicate), pruned by a sweep over the triangles' bounding boxes: gives the
/// same count as testing all pairs.
int count_cloth_self_intersections(const std::vector<Vec3>& x,
                                   const std::vector<std::array<int, 3>>& triangles);

/// Vertices and triangles of a cloth at t = 0 (grid via impetus's make_grid_cloth, or mesh).
void cloth_initial_mesh(const SceneClothDef& cloth, std::vector<Vec3>& vertices,
                        std::vector<std::array<int, 3>>& triangles);

}  // namespace impetus::peers
