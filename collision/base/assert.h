#pragma once
// IMPETUS_ASSERT: invariant checks, on in Debug and RelWithDebInfo (NDEBUG off), free in Release.
// IMPETUS_VALIDATE: costly consistency checks, on only with -DIMPETUS_VALIDATE=ON.
#include <cstdio>
#include <cstdlib>

#if !defined(NDEBUG)
#define IMPETUS_ASSERT(cond, why)                                                          \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "impetus: assertion failed: %s (%s) at %s:%d\n", #cond, why,  \
                   __FILE__, __LINE__);                                                    \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)
#else
#define IMPETUS_ASSERT(cond, why) ((void)0)
#endif

#if defined(IMPETUS_VALIDATE_CHECKS)
#define IMPETUS_VALIDATE(cond, why) IMPETUS_ASSERT(cond, why)
#else
#define IMPETUS_VALIDATE(cond, why) ((void)0)
#endif
