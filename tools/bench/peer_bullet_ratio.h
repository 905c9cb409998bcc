#pragma once
// The Bullet peer's figures beside impetus's in `impetus-bench scenes` (issue 10, item 6: one
// command shows where we stand). The peer is a separate program (tools/peers/bullet), built only
// when Bullet's dynamics are installed; when it sits next to impetus-bench it is run once on the
// same scene files and its figures are merged in.
#include <string>
#include <vector>

#include "tools/bench/bench.h"

namespace impetus::bench {

/// Runs impetus-peer-bullet (next to this executable) with `--json --no-impetus` on `scenes`
/// and adds, per scene it ran: `<scene>.peer_bullet.ms_per_step`, `.peer_bullet.max_penetration`
/// and `<scene>.over_peer_bullet` = impetus's 1-thread median ms/step over Bullet's. Without the
/// peer, a note says how to build it.
void add_bullet_peer_ratios(const BenchOptions& options, const std::vector<std::string>& scenes,
                            BenchReport& report);

}  // namespace impetus::bench
