// End-to-end tests of the run viewer (tools/viewer/): `impetus run` writes shapes.json and
// report.html, `impetus view DIR` rewrites them and prints the URL, and `--gltf` writes a .glb
// whose animation reproduces the trajectory. The GLB is parsed here from the glTF 2.0 container
// rules, independently of the writer.
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "tests/tools/cli_test_util.h"

namespace impetus::test {
namespace {

// A parsed .glb: its JSON chunk and its binary chunk.
struct Glb {
  json doc;
  std::string bin;
};

std::uint32_t u32(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (int k = 3; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(k)]);
  return v;
}

Glb parse_glb(const fs::path& path) {
  const std::string bytes = read_text(path);
  Glb glb;
  EXPECT_GE(bytes.size(), 28u);
  if (bytes.size() < 28) return glb;
  EXPECT_EQ(u32(bytes, 0), 0x46546C67u);  // "glTF"
  EXPECT_EQ(u32(bytes, 4), 2u);
  EXPECT_EQ(u32(bytes, 8), bytes.size());
  const std::uint32_t json_length = u32(bytes, 12);
  EXPECT_EQ(u32(bytes, 16), 0x4E4F534Au);  // "JSON"
  EXPECT_EQ(json_length % 4, 0u);
  glb.doc = json::parse(bytes.substr(20, json_length));
  const std::size_t bin_at = 20 + json_length;
  const std::uint32_t bin_length = u32(bytes, bin_at);
  EXPECT_EQ(u32(bytes, bin_at + 4), 0x004E4942u);  // "BIN\0"
  glb.bin = bytes.substr(bin_at + 8, bin_length);
  EXPECT_EQ(glb.doc.at("buffers").at(0).at("byteLength").get<std::size_t>(), bin_length);
  return glb;
}

// Float accessor `index` as a flat vector (tightly packed, as the writer must make them).
std::vector<float> floats(const Glb& glb, int index) {
  const json& accessor = glb.doc.at("accessors").at(index);
  EXPECT_EQ(accessor.at("componentType"), 5126);
  const json& view = glb.doc.at("bufferViews").at(accessor.at("bufferView").get<int>());
  const std::size_t components = accessor.at("type") == "SCALAR" ? 1 : accessor.at("type") == "VEC3" ? 3 : 4;
  const std::size_t count = accessor.at("count").get<std::size_t>() * components;
  const std::size_t offset = view.value("byteOffset", std::size_t{0}) + accessor.value("byteOffset", std::size_t{0});
  EXPECT_LE(offset + 4 * count, glb.bin.size());
  std::vector<float> values(count);
  std::memcpy(values.data(), glb.bin.data() + offset, 4 * count);
  return values;
}

std::vector<json> trajectory(const fs::path& dir) {
  std::istringstream lines(read_text(dir / "trajectory.jsonl"));
  std::vector<json> frames;
  for (std::string line; std::getline(lines, line);) frames.push_back(json::parse(line));
  return frames;
}

// The sampler feeding `path` of node `node`.
const json& sampler_of(const json& animation, int node, const std::string& path) {
  for (const json& channel : animation.at("channels")) {
    if (channel.at("target").at("node") == node && channel.at("target").at("path") == path)
      return animation.at("samplers").at(channel.at("sampler").get<int>());
  }
  ADD_FAILURE() << "no " << path << " channel for node " << node;
  static const json none;
  return none;
}

TEST_F(CliTest, RunWritesShapesReportAndGltfThatReplaysTheTrajectory) {
  write_text(path("scene.json"), pile_scene().dump());
  CommandResult r = cli("run " + quoted("scene.json") + " --out " + quoted("out") + " --gltf " +
                        quoted("run.glb"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path out = path("out");
  for (const char* file : {"report.html", "shapes.json", "report_files/data.js",
                           "report_files/viewer.js", "report_files/three.min.js",
                           "report_files/OrbitControls.js", "report_files/chart.min.js"})
    EXPECT_TRUE(fs::exists(out / file)) << file;

  // shapes.json: every body of the scene (static ones too), each with a surface.
  const json shapes = read_json(out / "shapes.json");
  EXPECT_EQ(shapes.at("format"), "impetus-shapes/1");
  ASSERT_EQ(shapes.at("bodies").size(), 4u + 4u);
  EXPECT_EQ(shapes.at("bodies").at(0).at("name"), "ground");
  EXPECT_EQ(shapes.at("bodies").at(0).at("shape"), "plane");
  // The four array spheres share one surface; ball, crate, platform, ground have their own.
  EXPECT_EQ(shapes.at("surfaces").size(), 5u);

  // data.js carries summary.json and every trajectory frame.
  std::string script = read_text(out / "report_files/data.js");
  const std::string prefix = "window.IMPETUS_REPORT = ";
  ASSERT_EQ(script.rfind(prefix, 0), 0u);
  script = script.substr(prefix.size(), script.rfind(';') - prefix.size());
  const json data = json::parse(script);
  const json summary = read_json(out / "summary.json");
  const std::vector<json> frames = trajectory(out);
  EXPECT_EQ(data.at("summary"), summary);
  ASSERT_EQ(data.at("frames").size(), frames.size());
  EXPECT_EQ(data.at("frames").back(), frames.back());

  // The glTF: a root node (z-up → y-up) over one node per body; one animation whose input is
  // the frame times and whose last keys are the final states of summary.json.
  const Glb glb = parse_glb(path("run.glb"));
  const json& doc = glb.doc;
  EXPECT_EQ(doc.at("asset").at("version"), "2.0");
  const json& nodes = doc.at("nodes");
  ASSERT_EQ(nodes.size(), shapes.at("bodies").size() + 1);
  const json& root = nodes.at(doc.at("scenes").at(0).at("nodes").at(0).get<int>());
  EXPECT_EQ(root.at("children").size(), shapes.at("bodies").size());
  ASSERT_EQ(doc.at("animations").size(), 1u);
  const json& animation = doc.at("animations").at(0);
  EXPECT_EQ(animation.at("channels").size(), 2 * kMovingBodies.size());
  for (std::size_t b = 0; b < shapes.at("bodies").size(); ++b) {
    const std::string name = shapes.at("bodies").at(b).at("name");
    const int node = root.at("children").at(b).get<int>();
    EXPECT_EQ(nodes.at(node).at("name"), name);
    EXPECT_TRUE(nodes.at(node).contains("mesh"));
    if (!summary.at("bodies").contains(name)) continue;  // static
    const json& move = sampler_of(animation, node, "translation");
    const json& turn = sampler_of(animation, node, "rotation");
    const std::vector<float> times = floats(glb, move.at("input").get<int>());
    ASSERT_EQ(times.size(), frames.size());
    for (std::size_t f = 0; f < frames.size(); ++f)
      EXPECT_EQ(times[f], static_cast<float>(frames[f].at("time").get<double>()));
    const std::vector<float> t = floats(glb, move.at("output").get<int>());
    const std::vector<float> q = floats(glb, turn.at("output").get<int>());
    ASSERT_EQ(t.size(), 3 * frames.size());
    ASSERT_EQ(q.size(), 4 * frames.size());
    const json& end = summary.at("bodies").at(name);
    const std::size_t last = frames.size() - 1;
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(t[3 * last + k], end.at("position").at(k).get<double>(), 1e-6) << name;
    // glTF quaternions are [x, y, z, w]; ours [w, x, y, z]; q and −q are the same rotation.
    double dot = q[4 * last + 3] * end.at("orientation").at(0).get<double>();
    for (int k = 0; k < 3; ++k) dot += q[4 * last + k] * end.at("orientation").at(k + 1).get<double>();
    EXPECT_NEAR(std::abs(dot), 1.0, 1e-6) << name;
  }
}

TEST_F(CliTest, GltfClothMorphTargetsReplayTheObjFrames) {
  const fs::path scene = fs::path(IMPETUS_SOURCE_DIR) / "scenes/cloth_flag.json";
  CommandResult r = cli("run '" + scene.string() + "' --out " + quoted("out") +
                        " --steps 12 --every 6 --no-report --gltf " + quoted("flag.glb"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(path("out/report.html")));  // --no-report
  const Glb glb = parse_glb(path("flag.glb"));
  // The cloth is the last child of the root; its mesh's morph targets are frames 1.. as offsets
  // from frame 0, whose positions are the base.
  const json& nodes = glb.doc.at("nodes");
  const json& root = nodes.back();
  const json& cloth = nodes.at(root.at("children").back().get<int>());
  EXPECT_EQ(cloth.at("name"), "flag");
  const json& primitive = glb.doc.at("meshes").at(cloth.at("mesh").get<int>()).at("primitives").at(0);
  const std::vector<float> base = floats(glb, primitive.at("attributes").at("POSITION").get<int>());
  ASSERT_EQ(primitive.at("targets").size(), 2u);  // frames at steps 0, 6, 12
  const std::vector<float> offset = floats(glb, primitive.at("targets").at(1).at("POSITION").get<int>());
  std::ifstream obj(path("out/cloth/flag_000012.obj"));
  std::vector<double> expected;
  for (std::string tag; obj >> tag;) {
    if (tag == "v") {
      double x, y, z;
      obj >> x >> y >> z;
      expected.insert(expected.end(), {x, y, z});
    } else {
      std::string rest;
      std::getline(obj, rest);
    }
  }
  ASSERT_EQ(expected.size(), base.size());
  for (std::size_t i = 0; i < base.size(); ++i) EXPECT_NEAR(base[i] + offset[i], expected[i], 1e-5);
  // The weights channel shows target 2 (frame 2) alone at the last key.
  const json& animation = glb.doc.at("animations").at(0);
  const std::vector<float> weights =
      floats(glb, sampler_of(animation, root.at("children").back().get<int>(), "weights").at("output").get<int>());
  EXPECT_EQ(weights, (std::vector<float>{0, 0, 1, 0, 0, 1}));
}

TEST_F(CliTest, ViewRewritesTheReportAndPrintsItsUrl) {
  write_text(path("scene.json"), pile_scene().dump());
  ASSERT_EQ(cli("run " + quoted("scene.json") + " --out " + quoted("out") + " --no-report").exit_code, 0);
  EXPECT_FALSE(fs::exists(path("out/report.html")));
  CommandResult r = cli("view " + quoted("out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "file://" + fs::canonical(path("out")).string() + "/report.html\n");
  EXPECT_TRUE(fs::exists(path("out/report.html")));
  EXPECT_TRUE(fs::exists(path("out/report_files/data.js")));

  // Results without shapes.json (an older impetus): a clear error, then --scene rebuilds it.
  fs::remove(path("out/shapes.json"));
  r = cli("view " + quoted("out"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("shapes.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--scene"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  r = cli("view " + quoted("out") + " --scene " + quoted("scene.json"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(path("out/shapes.json")));

  // Not a results folder at all.
  r = cli("view " + quoted("nowhere"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
}

TEST_F(CliTest, ViewRejectsDamagedResultsWithOneErrorLine) {
  write_text(path("scene.json"), pile_scene().dump());
  ASSERT_EQ(cli("run " + quoted("scene.json") + " --out " + quoted("out") + " --no-report").exit_code, 0);
  const json shapes = read_json(path("out/shapes.json"));
  const std::string trajectory = read_text(path("out/trajectory.jsonl"));
  auto expect_rejected = [&](const std::string& what, const std::string& where) {
    CommandResult r = cli("view " + quoted("out") + " --gltf " + quoted("out.glb"));
    EXPECT_EQ(r.exit_code, 2) << what;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << what << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
    EXPECT_NE(r.err.find(where), std::string::npos) << what << ": " << r.err;
  };
  // Each damage on its own, the other files intact.
  const std::vector<std::pair<std::string, std::function<void(json*)>>> damages = {
      {"surfaces[0]", [](json* d) { (*d)["surfaces"][0]["triangles"].push_back(999); }},
      {"surfaces[1]", [](json* d) { (*d)["surfaces"][1]["vertices"] = "none"; }},
      {"bodies[2]", [](json* d) { (*d)["bodies"][2]["surface"] = 99; }},
      {"bodies[3]", [](json* d) { (*d)["bodies"][3]["color"] = "#zzzzzz"; }},
      {"bodies[1]", [](json* d) { (*d)["bodies"][1]["orientation"] = json::array({1, 0}); }},
      {"bodies[0]", [](json* d) { (*d)["bodies"][0].erase("name"); }},
      {"shapes.json", [](json* d) { (*d)["format"] = "other/1"; }},
  };
  for (const auto& [where, damage] : damages) {
    json bad = shapes;
    damage(&bad);
    write_text(path("out/shapes.json"), bad.dump());
    expect_rejected("shapes.json " + where, where);
  }
  write_text(path("out/shapes.json"), shapes.dump());
  write_text(path("out/trajectory.jsonl"), trajectory + "{\"step\": 1}\n");
  expect_rejected("trajectory without time", "trajectory.jsonl:" + std::to_string(count_lines(trajectory) + 1));
  write_text(path("out/trajectory.jsonl"), trajectory + "not json\n");
  expect_rejected("trajectory line not JSON", "trajectory.jsonl:");

  // A frame whose body records are damaged still exports: those bodies keep their last pose.
  std::string odd = trajectory;
  odd += "{\"step\": 1000, \"time\": 10.0, \"bodies\": {\"ball\": 7, \"crate\": {\"position\": null}}}\n";
  write_text(path("out/trajectory.jsonl"), odd);
  CommandResult r = cli("view " + quoted("out") + " --gltf " + quoted("out.glb"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(path("out.glb")));
}

}  // namespace
}  // namespace impetus::test
