#include "tools/peers/mujoco/mjcf_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "collision/shape/mass_properties.h"

namespace impetus::peers {
namespace {

constexpr double kContactTimeConstant = 0.02;  // s, MuJoCo's default solref[0]
constexpr int kNoParent = -2;                   // a tree root: freejoint
constexpr int kWorldParent = -1;                // jointed to the world
constexpr int kMaxNewtonDofs = 1000;            // above: the CG solver (see size_buffers)

std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

std::string vec(const Vec3& v) { return num(v.x()) + " " + num(v.y()) + " " + num(v.z()); }

std::string quat(const Quat& q) {
  return num(q.w()) + " " + num(q.x()) + " " + num(q.y()) + " " + num(q.z());
}

struct TreeJoint {
  int joint = -1;       // index into scene.joints
  bool flipped = false; // the joint's body_b is the child
};

class Writer {
 public:
  explicit Writer(const SceneDef& scene) : scene_(scene) {}

  MjcfModel build() {
    const int n = static_cast<int>(scene_.bodies.size());
    for (const BodyDef& b : scene_.bodies) {
      if (b.shape.type == ShapeType::Convex || b.shape.type == ShapeType::Mesh) {
        throw std::runtime_error("body '" + b.name + "': " + shape_type_name(b.shape.type) +
                                 " shapes are not modelled in the MuJoCo peer");
      }
    }
    if (!scene_.cloths.empty()) throw std::runtime_error("MuJoCo 2.2.2 has no cloth");
    parent_.assign(n, kNoParent);
    tree_joint_.assign(n, TreeJoint{});
    children_.assign(n, {});
    model_.body_names.assign(n, "");
    for (int j = 0; j < static_cast<int>(scene_.joints.size()); ++j) place_joint(j);
    for (int i = 0; i < n; ++i) {
      if (is_moving(i) && parent_[i] >= 0) children_[parent_[i]].push_back(i);
    }

    int moving = 0;
    int nv = 0;
    for (int i = 0; i < n; ++i) {
      if (!is_moving(i)) continue;
      ++moving;
      nv += dofs_of(i);
    }
    size_buffers(moving, nv);

    std::ostringstream xml;
    xml << "<mujoco model=\"" << (scene_.name.empty() ? "scene" : scene_.name) << "\">\n";
    xml << "  <compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n";
    xml << "  <option timestep=\"" << num(scene_.world.dt / std::max(1, scene_.world.substeps))
        << "\" gravity=\"" << vec(scene_.world.gravity) << "\""
        << (model_.elliptic_cones ? " cone=\"elliptic\"" : "")
        << (model_.cg_solver ? " solver=\"CG\"" : "") << "/>\n";
    xml << "  <size nconmax=\"" << model_.nconmax << "\" njmax=\"" << model_.njmax << "\"/>\n";
    xml << "  <worldbody>\n";
    for (int i = 0; i < n; ++i) {
      if (!is_moving(i)) write_geom(xml, i, Pose{scene_.bodies[i].position,
                                                  scene_.bodies[i].orientation}, "    ");
    }
    for (int i = 0; i < n; ++i) {
      if (is_moving(i) && parent_[i] < 0) write_body(xml, i, "    ");
    }
    xml << "  </worldbody>\n";
    if (!loops_.empty()) {
      xml << "  <contact>\n";
      for (int j : loops_) {
        const SceneJointDef& joint = scene_.joints[j];
        if (joint.body_b >= 0 && is_moving(joint.body_b)) {
          xml << "    <exclude body1=\"b" << joint.body_a << "\" body2=\"b" << joint.body_b
              << "\"/>\n";
        }
      }
      xml << "  </contact>\n  <equality>\n";
      for (int j : loops_) write_equality(xml, j);
      xml << "  </equality>\n";
    }
    xml << "</mujoco>\n";
    model_.xml = xml.str();
    return model_;
  }

 private:
  bool is_moving(int i) const { return scene_.bodies[i].motion == MotionType::Dynamic; }

  // Degrees of freedom body i adds: a free root 6, a ball 3, a hinge or slider 1, fixed 0.
  int dofs_of(int i) const {
    const TreeJoint& t = tree_joint_[i];
    if (t.joint < 0) return parent_[i] == kNoParent ? 6 : 0;
    switch (scene_.joints[t.joint].type) {
      case JointType::Ball: return 3;
      case JointType::Hinge:
      case JointType::Slider: return 1;
      case JointType::Fixed: return 0;
    }
    return 0;
  }

  // MuJoCo 2.2.2 allocates its constraint arrays up front in one buffer whose size is an int
  // (< 2 GiB): efc_J, efc_JT (njmax × nv doubles and ints) and efc_AR (njmax² doubles and
  // ints). Piles reach ~2.6 (spheres) to ~3.5 (boxes) contact points per body; a pyramidal
  // contact (MuJoCo's default) takes 4 rows, an elliptic one 3, a joint up to 6 and a limit 1.
  // When the pyramidal rows do not fit, elliptic cones are used (reported).
  void size_buffers(int moving, int nv) {
    const double kMaxBytes = 2.0e9;
    auto bytes = [&](double njmax) { return 24.0 * njmax * nv + 12.0 * njmax * njmax; };
    const int joint_rows = 7 * static_cast<int>(scene_.joints.size()) + 100;
    model_.nconmax = 3 * moving + 100;
    model_.njmax = 4 * model_.nconmax + joint_rows;
    if (bytes(model_.njmax) > kMaxBytes) {
      model_.elliptic_cones = true;
      model_.njmax = 3 * model_.nconmax + joint_rows;
      while (bytes(model_.njmax) > kMaxBytes) model_.njmax = static_cast<int>(0.95 * model_.njmax);
    }
    model_.nv = nv;
    // MuJoCo 2.2.2's Newton solver (the default) took over 7 s per step on the 1,000-body piles
    // (6,000 dofs) here; CG, its other primal solver, takes tens of milliseconds.
    model_.cg_solver = nv > kMaxNewtonDofs;
  }

  Pose pose_of(int i) const {
    if (i < 0) return Pose{};
    return Pose{scene_.bodies[i].position, scene_.bodies[i].orientation};
  }

  // True when `ancestor` is `body` or one of its tree ancestors.
  bool is_ancestor(int ancestor, int body) const {
    for (int b = body; b >= 0; b = parent_[b]) {
      if (b == ancestor) return true;
    }
    return false;
  }

  void place_joint(int j) {
    const SceneJointDef& joint = scene_.joints[j];
    int a = joint.body_a;
    // A static partner is the world: its geoms live in the worldbody.
    int b = joint.body_b >= 0 && is_moving(joint.body_b) ? joint.body_b : kWorldParent;
    if (is_moving(a) && parent_[a] == kNoParent && !is_ancestor(a, b)) {
      parent_[a] = b;
      tree_joint_[a] = TreeJoint{j, false};
      ++model_.tree_joints;
    } else if (b >= 0 && parent_[b] == kNoParent && (!is_moving(a) || !is_ancestor(b, a))) {
      parent_[b] = is_moving(a) ? a : kWorldParent;
      tree_joint_[b] = TreeJoint{j, true};
      ++model_.tree_joints;
    } else {
      loops_.push_back(j);
      ++model_.loop_joints;
    }
  }

  void write_geom(std::ostringstream& xml, int i, const Pose& pose, const std::string& indent) {
    const BodyDef& body = scene_.bodies[i];
    const Shape& s = body.shape;
    const MaterialDef& material = scene_.world.materials[body.material];
    xml << indent << "<geom name=\"g" << i << "\"";
    switch (s.type) {
      case ShapeType::Sphere:
        xml << " type=\"sphere\" size=\"" << num(s.radius) << "\"";
        break;
      case ShapeType::Capsule:
        xml << " type=\"capsule\" size=\"" << num(s.radius) << " " << num(s.half_length) << "\"";
        break;
      case ShapeType::Box:
        xml << " type=\"box\" size=\"" << vec(s.half_extents) << "\"";
        break;
      case ShapeType::Ellipsoid:
        xml << " type=\"ellipsoid\" size=\"" << vec(s.radii) << "\"";
        break;
      case ShapeType::Plane: {
        // The plane geom is z = 0 in its frame, solid below: the scene's n·x <= offset.
        Vec3 n = s.normal.normalized();
        Pose plane{pose.apply(s.offset * n), pose.orientation * Quat::FromTwoVectors(Vec3::UnitZ(), n)};
        xml << " type=\"plane\" size=\"0 0 1\" pos=\"" << vec(plane.position) << "\" quat=\""
            << quat(plane.orientation) << "\"";
        break;
      }
      case ShapeType::Convex:
      case ShapeType::Mesh:
        break;
    }
    if (s.type != ShapeType::Plane) {
      xml << " pos=\"" << vec(pose.position) << "\" quat=\"" << quat(pose.orientation) << "\"";
    }
    xml << " friction=\"" << num(material.friction) << " 0.005 0.0001\"";
    if (material.restitution > 0) {
      double zeta = restitution_damping_ratio(material.restitution);
      double tc = kContactTimeConstant;
      xml << " solref=\"" << num(-1.0 / (tc * tc)) << " " << num(-2.0 * zeta / tc) << "\"";
    }
    xml << "/>\n";
  }

  void write_joint(std::ostringstream& xml, int i, const std::string& indent) {
    const TreeJoint& t = tree_joint_[i];
    if (t.joint < 0) {
      if (parent_[i] == kNoParent) xml << indent << "<freejoint/>\n";
      return;
    }
    const SceneJointDef& joint = scene_.joints[t.joint];
    Pose frame = pose_of(i);
    Vec3 pos = frame.inverse_apply(joint.anchor);
    Vec3 axis = frame.inverse_rotate(joint.axis.normalized());
    switch (joint.type) {
      case JointType::Ball:
        xml << indent << "<joint name=\"j" << t.joint << "\" type=\"ball\" pos=\"" << vec(pos)
            << "\"/>\n";
        break;
      case JointType::Hinge:
      case JointType::Slider: {
        xml << indent << "<joint name=\"j" << t.joint << "\" type=\""
            << (joint.type == JointType::Hinge ? "hinge" : "slide") << "\" pos=\"" << vec(pos)
            << "\" axis=\"" << vec(axis) << "\"";
        if (joint.limits) {
          // The scene's angle is a relative to b; MuJoCo's is child relative to parent.
          double lo = (*joint.limits)[0];
          double hi = (*joint.limits)[1];
          if (t.flipped) {
            std::swap(lo, hi);
            lo = -lo;
            hi = -hi;
          }
          xml << " limited=\"true\" range=\"" << num(lo) << " " << num(hi) << "\"";
        }
        xml << "/>\n";
        break;
      }
      case JointType::Fixed:
        break;  // a body without joints is welded to its parent
    }
  }

  void write_body(std::ostringstream& xml, int i, const std::string& indent) {
    const BodyDef& body = scene_.bodies[i];
    Pose local = pose_of(parent_[i] >= 0 ? parent_[i] : kWorldParent).inverse() * pose_of(i);
    // Built in place: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string here.
    std::string& name = model_.body_names[i];
    name = std::to_string(i);
    name.insert(name.begin(), 'b');
    xml << indent << "<body name=\"b" << i << "\" pos=\"" << vec(local.position) << "\" quat=\""
        << quat(local.orientation) << "\">\n";
    std::string inner = indent + "  ";
    write_joint(xml, i, inner);
    const MaterialDef& material = scene_.world.materials[body.material];
    MassProperties mp = body.mass ? compute_mass_properties_with_mass(body.shape, *body.mass)
                                  : compute_mass_properties(body.shape, material.density);
    const Mat3& I = mp.inertia;
    xml << inner << "<inertial pos=\"" << vec(mp.center_of_mass) << "\" mass=\"" << num(mp.mass)
        << "\" fullinertia=\"" << num(I(0, 0)) << " " << num(I(1, 1)) << " " << num(I(2, 2))
        << " " << num(I(0, 1)) << " " << num(I(0, 2)) << " " << num(I(1, 2)) << "\"/>\n";
    write_geom(xml, i, Pose{}, inner);
    for (int child : children_[i]) write_body(xml, child, inner);
    xml << indent << "</body>\n";
  }

  void write_equality(std::ostringstream& xml, int j) {
    const SceneJointDef& joint = scene_.joints[j];
    int b = joint.body_b >= 0 && is_moving(joint.body_b) ? joint.body_b : kWorldParent;
    std::string body2 = b >= 0 ? " body2=\"b" + std::to_string(b) + "\"" : "";
    if (joint.type == JointType::Ball) {
      Vec3 anchor = pose_of(joint.body_a).inverse_apply(joint.anchor);
      xml << "    <connect body1=\"b" << joint.body_a << "\"" << body2 << " anchor=\""
          << vec(anchor) << "\"/>\n";
    } else {
      // Hinges and sliders in loops are welded: their free motion is lost (reported).
      xml << "    <weld body1=\"b" << joint.body_a << "\"" << body2 << "/>\n";
    }
  }

  const SceneDef& scene_;
  MjcfModel model_;
  std::vector<int> parent_;
  std::vector<TreeJoint> tree_joint_;
  std::vector<std::vector<int>> children_;
  std::vector<int> loops_;
};

}  // namespace

double restitution_damping_ratio(double e) {
  if (e >= 1) return 0;
  double l = std::log(e);
  return -l / std::sqrt(kPi * kPi + l * l);
}

MjcfModel build_mjcf(const SceneDef& scene) { return Writer(scene).build(); }

}  // namespace impetus::peers
