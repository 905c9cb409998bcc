#include "tools/peers/fcl/fcl_geometry.h"

#include <vector>

namespace impetus::peers {

std::shared_ptr<fcl::CollisionGeometryd> to_fcl_geometry(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::Sphere:
      return std::make_shared<fcl::Sphered>(shape.radius);
    case ShapeType::Capsule:
      // FCL's capsule: radius and full length of the core segment, along local z like ours.
      return std::make_shared<fcl::Capsuled>(shape.radius, 2 * shape.half_length);
    case ShapeType::Box:
      return std::make_shared<fcl::Boxd>(2 * shape.half_extents);
    case ShapeType::Convex: {
      // Faces encoded as [n, i0, …, i(n−1)], CCW seen from outside (as our hull faces are).
      auto vertices = std::make_shared<std::vector<fcl::Vector3d>>(shape.hull->vertices.begin(),
                                                                   shape.hull->vertices.end());
      auto faces = std::make_shared<std::vector<int>>();
      for (const HullFace& face : shape.hull->faces) {
        faces->push_back(static_cast<int>(face.vertices.size()));
        faces->insert(faces->end(), face.vertices.begin(), face.vertices.end());
      }
      return std::make_shared<fcl::Convexd>(vertices, static_cast<int>(shape.hull->faces.size()),
                                            faces);
    }
    case ShapeType::Mesh: {
      auto model = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
      std::vector<fcl::Vector3d> vertices(shape.mesh->vertices.begin(),
                                          shape.mesh->vertices.end());
      std::vector<fcl::Triangle> triangles;
      triangles.reserve(shape.mesh->triangles.size());
      for (const auto& t : shape.mesh->triangles) triangles.emplace_back(t[0], t[1], t[2]);
      model->beginModel();
      model->addSubModel(vertices, triangles);
      model->endModel();
      return model;
    }
    case ShapeType::Ellipsoid:
    case ShapeType::Plane:
      break;
  }
  return nullptr;
}

fcl::Transform3d to_fcl_transform(const Pose& pose) {
  fcl::Transform3d tf = fcl::Transform3d::Identity();
  tf.linear() = pose.orientation.toRotationMatrix();
  tf.translation() = pose.position;
  return tf;
}

}  // namespace impetus::peers
