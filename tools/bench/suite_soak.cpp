// Suite `soak`: long runs of three scenes of scenes/ (box_pile, ragdolls, cloth_box_stack), each
// stepped 100,000 times (--quick: 300) with the World built exactly as `impetus run` builds it.
// What a long run must not do, each measured and checked:
//   - diverge (World status);
//   - grow: resident memory (/proc/self/statm) after step 1,000 and at the end within 1%
//     (checked in full runs only: a 300-step run ends before the allocations settle);
//   - gain energy: total energy (World::total_energy) sampled every 100 steps never rises above
//     its start by more than 1% of the scene's energy scale (a dissipative scene loses energy;
//     contacts, joints and cloth add none);
//   - stay awake: in scenes that come to rest (box_pile, ragdolls), every dynamic body is
//     asleep at the end. cloth_box_stack's cloth never sleeps and keeps touching the boxes, so
//     only its count is reported.
// A failed check makes the suite exit 1, with a note saying which.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "engine/scene_loader.h"
#include "engine/world_builder.h"
#include "engine/world.h"
#include "tools/bench/suites.h"

namespace impetus::bench {
namespace {

struct SoakScene {
  const char* name;
  bool comes_to_rest;  // every dynamic body should be asleep at the end
};
constexpr SoakScene kScenes[] = {{"box_pile", true}, {"ragdolls", true}, {"cloth_box_stack", false}};
constexpr long long kFullSteps = 100'000;
constexpr long long kQuickSteps = 300;
constexpr long long kRssReferenceStep = 1'000;  // full runs; quick runs use a third of the run
constexpr long long kEnergyEvery = 100;
constexpr double kMaxRssGrowth = 0.01;
constexpr double kMaxEnergyRise = 0.01;  // of the energy scale (see energy_scale)

// Resident set size in MiB, from /proc/self/statm (pages).
double resident_mib() {
  std::ifstream statm("/proc/self/statm");
  long long size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return static_cast<double>(resident_pages) * static_cast<double>(sysconf(_SC_PAGESIZE)) /
         (1024.0 * 1024.0);
}

// The scale against which an energy rise is judged: the largest of the start energy's
// magnitude and Σ m g h over the dynamic bodies above the lowest one (potential energy is only
// defined up to a constant, so |E_start| alone can be near zero).
double energy_scale(const World& world) {
  double scale = std::abs(world.total_energy());
  const double g = world.def().gravity.norm();
  double lowest = INFINITY;
  for (int i = 0; i < world.body_count(); ++i) {
    const BodyId id = world.body_id(i);
    if (world.body_mass(id) > 0) lowest = std::min(lowest, world.body_state(id).position.z());
  }
  double drop = 0;
  for (int i = 0; i < world.body_count(); ++i) {
    const BodyId id = world.body_id(i);
    if (world.body_mass(id) > 0) drop += world.body_mass(id) * g * (world.body_state(id).position.z() - lowest);
  }
  return std::max({scale, drop, 1.0});
}

bool soak_scene(const SoakScene& soak, const BenchOptions& options, BenchReport& report) {
  const std::string name = soak.name;
  const std::filesystem::path path =
      std::filesystem::path(options.source_dir) / "scenes" / (name + ".json");
  SceneLoadResult loaded = load_scene_file(path.string());
  if (!loaded.ok()) {
    report.skipped.push_back(name + ": cannot load: " + loaded.error);
    return false;
  }
  const SceneDef& scene = *loaded.scene;
  const long long steps = options.quick ? kQuickSteps : kFullSteps;
  const long long rss_step = options.quick ? steps / 3 : kRssReferenceStep;

  std::unique_ptr<World> world;
  try {
    world = build_world(scene);
  } catch (const std::exception& e) {
    report.skipped.push_back(name + ": the world rejected the scene: " + e.what());
    return false;
  }
  int dynamic_bodies = 0;
  for (int i = 0; i < world->body_count(); ++i) dynamic_bodies += world->body_mass(world->body_id(i)) > 0;

  const double energy_start = world->total_energy();
  const double scale = energy_scale(*world);
  double energy_max = energy_start;
  long long energy_max_step = 0;
  double rss_reference = 0;
  const auto start = std::chrono::steady_clock::now();
  long long done = 0;
  for (; done < steps && world->status() == WorldStatus::Ok; ++done) {
    world->step();
    const long long step = done + 1;
    if (step % kEnergyEvery == 0) {
      const double e = world->total_energy();
      if (e > energy_max) {
        energy_max = e;
        energy_max_step = step;
      }
    }
    if (step == rss_step) rss_reference = resident_mib();
    if (step % 10000 == 0) {
      std::fprintf(stderr, "soak: %s step %lld: energy %.6g J, %d asleep, %.1f MiB\n",
                   name.c_str(), step, world->total_energy(), world->stats().bodies_asleep,
                   resident_mib());
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double rss_end = resident_mib();
  const bool diverged = world->status() != WorldStatus::Ok;
  const double rss_growth = rss_reference > 0 ? rss_end / rss_reference - 1 : 0;
  const double energy_rise = (energy_max - energy_start) / scale;
  const int asleep = world->stats().bodies_asleep;

  const std::string p = name + ".";
  report.figures[p + "steps"] = static_cast<double>(done);
  report.figures[p + "ms_per_step"] = 1000.0 * seconds / static_cast<double>(std::max(done, 1LL));
  report.figures[p + "diverged"] = diverged ? 1 : 0;
  report.figures[p + "rss_mib_reference"] = rss_reference;
  report.figures[p + "rss_reference_step"] = static_cast<double>(rss_step);
  report.figures[p + "rss_mib_end"] = rss_end;
  report.figures[p + "rss_growth_fraction"] = rss_growth;
  report.figures[p + "energy_start"] = energy_start;
  report.figures[p + "energy_end"] = world->total_energy();
  report.figures[p + "energy_max"] = energy_max;
  report.figures[p + "energy_max_step"] = static_cast<double>(energy_max_step);
  report.figures[p + "energy_scale"] = scale;
  report.figures[p + "energy_max_rise_fraction"] = energy_rise;
  report.figures[p + "dynamic_bodies"] = dynamic_bodies;
  report.figures[p + "bodies_asleep_end"] = asleep;
  report.figures[p + "max_penetration"] = world->stats().max_penetration;

  bool ok = true;
  auto fail = [&](const std::string& what) {
    report.notes.push_back(name + ": FAILED: " + what);
    ok = false;
  };
  if (diverged) fail("diverged: " + world->divergence_message());
  if (!options.quick && rss_growth > kMaxRssGrowth) {
    fail("resident memory grew by " + std::to_string(100 * rss_growth) + "% after step " +
         std::to_string(rss_step));
  }
  if (energy_rise > kMaxEnergyRise) {
    fail("energy rose by " + std::to_string(100 * energy_rise) + "% of its scale (step " +
         std::to_string(energy_max_step) + ")");
  }
  if (!options.quick && soak.comes_to_rest && asleep != dynamic_bodies) {
    fail(std::to_string(asleep) + " of " + std::to_string(dynamic_bodies) +
         " dynamic bodies asleep at the end");
  }
  report.notes.push_back(name + ": " + std::to_string(done) + " steps in " +
                         std::to_string(seconds) + " s; " + std::to_string(asleep) + "/" +
                         std::to_string(dynamic_bodies) + " asleep at the end");
  return ok;
}

}  // namespace

int run_suite_soak(const BenchOptions& options, BenchReport& report) {
  bool ok = true;
  for (const SoakScene& soak : kScenes) ok = soak_scene(soak, options, report) && ok;
  return ok ? 0 : 1;
}

}  // namespace impetus::bench
