#include "collision/base/log.h"

#include <mutex>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace impetus {

std::shared_ptr<spdlog::logger> logger() {
  static std::shared_ptr<spdlog::logger> instance = [] {
    std::shared_ptr<spdlog::logger> existing = spdlog::get("impetus");
    if (existing) return existing;
    auto created = spdlog::stderr_color_mt("impetus");
    created->set_level(spdlog::level::warn);
    created->set_pattern("[%l] %v");
    return created;
  }();
  return instance;
}

}  // namespace impetus
