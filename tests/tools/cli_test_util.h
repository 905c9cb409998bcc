#pragma once
// Shared by the CLI tests: run the built `impetus` (IMPETUS_CLI) in a fresh temp folder per test
// and capture its exit status, stdout and stderr; small scenes; our own FNV-1a for state_hash.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace impetus::test {

namespace fs = std::filesystem;
using nlohmann::json;

// Substring check with a readable failure (the test target links gtest, not gmock).
#define EXPECT_CONTAINS(haystack, needle)                                              \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)                    \
      << "expected to find \"" << (needle) << "\" in:\n"                              \
      << (haystack)

inline constexpr double kPi = 3.14159265358979323846;

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline json read_json(const fs::path& path) { return json::parse(read_text(path)); }

inline int count_lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// A fresh folder per test, removed afterwards.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("impetus_cli_test_" + std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs the CLI with `args` (already shell-quoted where needed), stdin from `stdin_file` if set.
  CommandResult cli(const std::string& args, const std::string& stdin_file = "") {
    const fs::path out = dir_ / "stdout.txt";
    const fs::path err = dir_ / "stderr.txt";
    std::string command = std::string("'") + IMPETUS_CLI + "' " + args + " >'" + out.string() +
                          "' 2>'" + err.string() + "'";
    command += stdin_file.empty() ? " </dev/null" : " <'" + stdin_file + "'";
    int status = std::system(command.c_str());
    CommandResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = read_text(out);
    result.err = read_text(err);
    return result;
  }

  fs::path path(const std::string& name) const { return dir_ / name; }
  std::string quoted(const std::string& name) const {
    // Built by appending: GCC 12 warns (-Wrestrict, a false positive) on "'" + s + "'".
    std::string text(1, '\'');
    text.append(path(name).string());
    text.push_back('\'');
    return text;
  }

  fs::path dir_;
};

// Spheres, a box and a kinematic platform above a plane; jitter 0 so initial positions are
// exact and the initial energy has a closed form.
inline json pile_scene() {
  return json::parse(R"({
    "format": "impetus-scene/1",
    "name": "cli_pile",
    "settings": { "dt": 0.01, "steps": 120, "threads": 1, "seed": 3 },
    "materials": { "default": { "density": 1000, "friction": 0.5, "restitution": 0.0 } },
    "bodies": [
      { "name": "ground", "motion": "static",
        "shape": { "type": "plane", "normal": [0, 0, 1], "offset": 0 } },
      { "name": "ball", "shape": { "type": "sphere", "radius": 0.25 },
        "position": [0, 0, 1], "linear_velocity": [0.5, 0, 0] },
      { "name": "crate", "shape": { "type": "box", "half_extents": [0.2, 0.2, 0.2] },
        "position": [1, 0, 0.5], "orientation": [0.96, 0.28, 0, 0],
        "angular_velocity": [0, 0, 1] },
      { "name": "platform", "motion": "kinematic",
        "shape": { "type": "box", "half_extents": [0.5, 0.5, 0.05] },
        "position": [3, 0, 0.5], "linear_velocity": [0, 0.1, 0] }
    ],
    "arrays": [
      { "name": "s", "count": [2, 2, 1], "spacing": [0.6, 0.6, 0.6], "origin": [-2, -2, 0.4],
        "jitter": 0, "body": { "shape": { "type": "sphere", "radius": 0.2 } } }
    ],
    "output": { "every": 25 }
  })");
}

// Dynamic and kinematic bodies in scene order (arrays after bodies, k fastest).
inline const std::vector<std::string> kMovingBodies = {"ball",    "crate",   "platform", "s_0_0_0",
                                                "s_0_1_0", "s_1_0_0", "s_1_1_0"};

// Our own FNV-1a 64 over little-endian doubles, independent of engine/state_hash.cpp.
inline std::string fnv1a_of_bodies(const json& bodies) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const std::string& name : kMovingBodies) {
    const json& b = bodies.at(name);
    std::vector<double> values;
    for (const char* key : {"position", "orientation", "linear_velocity", "angular_velocity"}) {
      for (const json& x : b.at(key)) values.push_back(x.get<double>());
    }
    for (double v : values) {
      unsigned char bytes[8];
      std::uint64_t bits;
      std::memcpy(&bits, &v, 8);
      for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(bits >> (8 * i));
      for (unsigned char byte : bytes) {
        h ^= byte;
        h *= 1099511628211ULL;
      }
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

inline void expect_vec(const json& value, int size) {
  ASSERT_TRUE(value.is_array());
  ASSERT_EQ(static_cast<int>(value.size()), size);
  for (const json& x : value) EXPECT_TRUE(x.is_number());
}

inline void expect_body_states(const json& bodies) {
  ASSERT_TRUE(bodies.is_object());
  EXPECT_EQ(bodies.size(), kMovingBodies.size());
  for (const std::string& name : kMovingBodies) {
    ASSERT_TRUE(bodies.contains(name)) << name;
    const json& b = bodies.at(name);
    EXPECT_EQ(b.size(), 4u) << name;
    expect_vec(b.at("position"), 3);
    expect_vec(b.at("orientation"), 4);
    expect_vec(b.at("linear_velocity"), 3);
    expect_vec(b.at("angular_velocity"), 3);
  }
  EXPECT_FALSE(bodies.contains("ground"));  // static bodies are not listed
}
}  // namespace impetus::test
