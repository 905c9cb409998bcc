#pragma once
// The one spdlog logger of the engine, named "impetus". tools/ decides sinks and level; the
// library only logs lifecycle events (never inside per-body, per-pair or OpenMP loops).
#include <memory>
#include <spdlog/spdlog.h>

namespace impetus {

/// The "impetus" logger; created on first use with a stderr sink at level `warn`.
std::shared_ptr<spdlog::logger> logger();

}  // namespace impetus
