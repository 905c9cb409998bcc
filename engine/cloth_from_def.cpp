#include "engine/cloth_from_def.h"

namespace impetus {

ClothParams cloth_params_from_def(const ClothCommonDef& def, int threads) {
  ClothParams params;
  params.areal_density = def.areal_density;
  params.stretch_stiffness = def.stretch_stiffness;
  params.shear_stiffness = def.shear_stiffness;
  params.bend_stiffness = def.bend_stiffness;
  params.damping = def.damping;
  params.thickness = def.thickness;
  params.friction = def.friction;
  params.strain_limit = def.strain_limit;
  params.self_collision = def.self_collision;
  params.pinned = def.pin;
  params.threads = threads;
  return params;
}

}  // namespace impetus
