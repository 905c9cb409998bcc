#pragma once
// Runs impetus's own World on a scene inside a peer program, so that the peer's figures and
// ours come from one process run on one machine: `<scene>.impetus.*` beside `<scene>.*`.
#include <functional>
#include <string>
#include <vector>

#include "engine/world_def.h"
#include "tools/peers/bullet/peer_harness.h"

namespace impetus::peers {

/// Steps `scene` for `steps` steps with threads = 1 (the peers are single-threaded), measured
/// by SceneProbe like the peer; adds `<scene>.impetus.ms_per_step` (mean over the stepped run,
/// step() calls only) and the probe's figures under `<scene>.impetus`, and
/// `<scene>.impetus_over_peer` when `peer_ms_per_step` > 0; returns the ms per step (0 when it
/// could not run). Never throws: a World that rejects the scene or diverges is reported in
/// `skipped` / `notes`.
double run_impetus_side(const SceneDef& scene, long long steps, double peer_ms_per_step,
                        PeerReport& report);

/// The scene loop of a peer program: for each scene of `scenes` selected by the options, loads it,
/// runs it in the peer (`run_peer(scene, steps)` returns the peer's ms per step; an exception
/// puts the scene in `skipped`) and, unless --no-impetus, in impetus's World (run_impetus_side).
/// With --repeat N both run N times, alternately; the times and the ratio become medians, with
/// `<scene>.runs`, `<scene>.impetus_over_peer_min` and `_max` beside them.
void run_peer_scenes(const std::string& peer, const std::vector<std::string>& scenes,
                     const PeerOptions& options, PeerReport& report,
                     const std::function<double(const SceneDef&, long long)>& run_peer);

}  // namespace impetus::peers
