#pragma once
// `mpirun -n K impetus batch ...`: the runs spread over K ranks (tools/docs/batch-format.md,
// "MPI"). Rank 0 hands out runs one at a time as ranks ask for them (in schedule_order), runs
// its own share on a worker thread beside the hand-out loop, and gathers every run's entry.
// Every rank parses the manifest itself, so only run indices and finished entries travel.
// A rank that stops sending heartbeats for `rank_timeout` seconds is given up: its unfinished
// runs become "error" entries and the batch ends without waiting for it.
//
// Only the thread that called MPI_Init calls MPI (MPI_THREAD_FUNNELED); worker threads talk to
// it through a queue. Built only when CMake finds MPI (IMPETUS_HAVE_MPI).
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tools/cli/batch_run.h"
#include "tools/cli/batch_schedule.h"

namespace impetus::cli {

/// Whether this build has the MPI part.
bool batch_mpi_built();

/// Whether this process was started by mpirun (or another MPI launcher) among several
/// processes; false without the MPI part.
bool batch_mpi_launched();

/// MPI_Init (once) and this process's rank and the number of ranks; {0, 1} without MPI.
struct MpiWorld {
  int rank = 0;
  int size = 1;
};
MpiWorld batch_mpi_init();

/// MPI_Finalize, or, after a rank was given up, a plain exit that does not wait for it.
void batch_mpi_finish(bool rank_lost, int exit_code);

/// Runs the runs of `board` over every rank with `jobs` runs at once per rank. On rank 0, hands
/// them out from `board` and stores every result there (other ranks ignore `board`). Returns,
/// on every live rank, whether some rank was given up (then batch_mpi_finish must not wait
/// for it).
/// On rank 0, `tick` is called about ten times a second (for the reports written meanwhile).
bool run_batch_mpi(const MpiWorld& world, const BatchManifest& manifest, RunBoard* board,
                   const BatchRunSettings& settings, int jobs, double rank_timeout,
                   BatchProgress* progress, const std::function<void()>& tick);

}  // namespace impetus::cli
