// Embedding check: a world built from definition structs (no JSON), a sphere dropped on a
// ground plane, stepped for 1 s. Exits 0 only if the sphere ends at rest on the plane.
#include <cmath>
#include <cstdio>

#include "engine/world.h"

int main() {
  constexpr double kRadius = 0.25;
  constexpr double kDropHeight = 1.0;  // centre height at t = 0 [m]

  impetus::WorldDef world_def;
  world_def.dt = 1.0 / 240.0;
  impetus::World world(world_def);

  impetus::BodyDef ground;
  ground.name = "ground";
  ground.motion = impetus::MotionType::Static;
  ground.shape = impetus::Shape::plane(impetus::Vec3::UnitZ(), 0.0);
  world.create_body(ground);

  impetus::BodyDef ball;
  ball.name = "ball";
  ball.shape = impetus::Shape::sphere(kRadius);
  ball.position = impetus::Vec3(0, 0, kDropHeight);
  impetus::BodyId ball_id = world.create_body(ball);

  // Free fall lasts sqrt(2 * 0.75 / 9.81) ≈ 0.39 s; with restitution 0 the rest of the second
  // is spent lying on the plane.
  for (int i = 0; i < 240; ++i) world.step();

  impetus::BodyState state = world.body_state(ball_id);
  double height = state.position.z();
  double speed = state.linear_velocity.norm();
  std::printf("sphere height after %.3f s: %.6f m (radius %.2f m), speed %.2e m/s\n",
              world.time(), height, kRadius, speed);

  // Resting: centre one radius above the plane (within 5 mm: contact slop and penetration are
  // far smaller) and essentially still.
  bool resting = std::abs(height - kRadius) < 5e-3 && speed < 0.05 &&
                 world.status() == impetus::WorldStatus::Ok;
  if (!resting) {
    std::fprintf(stderr, "consumer: the sphere is not resting on the plane\n");
    return 1;
  }
  return 0;
}
