# Bullet's btDbvtBroadphase is the only part of Bullet the engine uses. Debian ships a
# double-precision build (libBulletCollision-float64); we use it so that AABBs need no
# float rounding, and define BT_USE_DOUBLE_PRECISION to match its headers.
if(NOT TARGET impetus_bullet_broadphase)
  find_path(IMPETUS_BULLET_INCLUDE_DIR btBulletCollisionCommon.h PATH_SUFFIXES bullet REQUIRED)
  find_library(IMPETUS_BULLET_COLLISION_LIB NAMES BulletCollision-float64 REQUIRED)
  find_library(IMPETUS_BULLET_LINEARMATH_LIB NAMES LinearMath-float64 REQUIRED)
  add_library(impetus_bullet_broadphase INTERFACE IMPORTED)
  set_target_properties(impetus_bullet_broadphase PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${IMPETUS_BULLET_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "BT_USE_DOUBLE_PRECISION"
    INTERFACE_LINK_LIBRARIES "${IMPETUS_BULLET_COLLISION_LIB};${IMPETUS_BULLET_LINEARMATH_LIB}")
endif()
