#include "tools/cli/batch_mpi.h"

#include <cstdlib>

#if IMPETUS_HAVE_MPI
#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#endif

#if IMPETUS_HAVE_MPI
namespace {
// Set once MPI_Init has run: the process is an MPI rank.
bool g_mpi_initialised = false;
}  // namespace

// LeakSanitizer's hook, read at exit in sanitizer builds (IMPETUS_SANITIZE=ON); an unused symbol
// otherwise. Open MPI leaves ~120 KB allocated after MPI_Finalize (a bare MPI_Init + MPI_Finalize
// program reports 57 leaks under `mpiexec -n 2`), from components it has already unloaded, so
// LeakSanitizer can neither name nor suppress them. An MPI rank therefore skips the leak check;
// the same batch code is leak-checked in the single-process batch tests.
extern "C" int __lsan_is_turned_off() { return g_mpi_initialised ? 1 : 0; }
#endif

namespace impetus::cli {

bool batch_mpi_launched() {
#if IMPETUS_HAVE_MPI
  // Set by Open MPI's mpirun, by MPICH's hydra and by PMIx launchers (srun, prterun).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
#endif
  return false;
}

bool batch_mpi_built() {
#if IMPETUS_HAVE_MPI
  return true;
#else
  return false;
#endif
}

#if !IMPETUS_HAVE_MPI

MpiWorld batch_mpi_init() { return {}; }
void batch_mpi_finish(bool, int) {}
bool run_batch_mpi(const MpiWorld&, const BatchManifest&, RunBoard*, const BatchRunSettings&, int,
                   double, BatchProgress*, const std::function<void()>&) {
  return false;
}

#else

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kTagRequest = 1;    // worker → 0: a slot is free (int, unused)
constexpr int kTagAssign = 2;     // 0 → worker: a run index (long long), or -1 = no more runs
constexpr int kTagResult = 3;     // worker → 0: "INDEX\nENTRY-JSON\nSUMMARY-TEXT"
constexpr int kTagHeartbeat = 4;  // worker → 0: still alive (int, unused)
constexpr int kTagEnd = 5;        // 0 → worker: all done (int: 1 when a rank was given up)
constexpr double kHeartbeatSeconds = 1.0;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void send_int(int value, int dest, int tag) { MPI_Send(&value, 1, MPI_INT, dest, tag, MPI_COMM_WORLD); }

std::string encode_result(std::size_t index, const BatchRunResult& result) {
  return std::to_string(index) + "\n" + result.entry.dump() + "\n" + result.summary_text;
}

bool decode_result(const std::string& text, std::size_t* index, BatchRunResult* result) {
  const std::size_t first = text.find('\n');
  if (first == std::string::npos) return false;
  const std::size_t second = text.find('\n', first + 1);
  if (second == std::string::npos) return false;
  try {
    *index = static_cast<std::size_t>(std::stoull(text.substr(0, first)));
    result->entry = nlohmann::ordered_json::parse(text.substr(first + 1, second - first - 1));
  } catch (const std::exception&) {
    return false;
  }
  result->summary_text = text.substr(second + 1);
  return true;
}

// Rank > 0: worker threads ask this (MPI) thread for runs and hand their results to it.
// Returns whether rank 0 gave up some rank (then nobody may wait for it in MPI_Finalize).
bool serve_worker_rank(const BatchManifest& manifest, const BatchRunSettings& settings, int jobs) {
  std::mutex mutex;
  std::condition_variable changed;
  int requests = 0;                          // slots waiting for a run, not yet asked for
  std::deque<long long> assignments;         // received, not yet taken
  std::deque<std::pair<std::size_t, BatchRunResult>> outgoing;
  bool threads_done = false;

  auto take = [&]() -> std::optional<std::size_t> {
    std::unique_lock<std::mutex> lock(mutex);
    ++requests;
    changed.notify_all();
    changed.wait(lock, [&] { return !assignments.empty(); });
    const long long index = assignments.front();
    assignments.pop_front();
    if (index < 0) return std::nullopt;
    return static_cast<std::size_t>(index);
  };
  auto give = [&](std::size_t index, BatchRunResult result) {
    std::lock_guard<std::mutex> lock(mutex);
    outgoing.emplace_back(index, std::move(result));
    changed.notify_all();
  };
  std::thread workers([&] {
    run_worker_threads(jobs, manifest, settings, take, give, nullptr);
    std::lock_guard<std::mutex> lock(mutex);
    threads_done = true;
    changed.notify_all();
  });

  Clock::time_point last_beat = Clock::now() - std::chrono::seconds(10);
  while (true) {
    std::deque<std::pair<std::size_t, BatchRunResult>> results;
    int asks = 0;
    bool done = false;
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait_for(lock, std::chrono::milliseconds(2),
                       [&] { return requests > 0 || !outgoing.empty() || threads_done; });
      results.swap(outgoing);
      asks = requests;
      requests = 0;
      done = threads_done;
    }
    // Results first: rank 0 counts a run as done before it sees the slot's next request.
    for (const auto& [index, result] : results) {
      const std::string text = encode_result(index, result);
      MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, kTagResult, MPI_COMM_WORLD);
    }
    for (int i = 0; i < asks; ++i) send_int(0, 0, kTagRequest);
    if (done) break;
    if (seconds_since(last_beat) >= kHeartbeatSeconds) {
      send_int(0, 0, kTagHeartbeat);
      last_beat = Clock::now();
    }
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(0, kTagAssign, MPI_COMM_WORLD, &flag, &status);
    while (flag) {
      long long index = -1;
      MPI_Recv(&index, 1, MPI_LONG_LONG, 0, kTagAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      {
        std::lock_guard<std::mutex> lock(mutex);
        assignments.push_back(index);
        changed.notify_all();
      }
      MPI_Iprobe(0, kTagAssign, MPI_COMM_WORLD, &flag, &status);
    }
  }
  workers.join();
  int lost = 0;
  MPI_Recv(&lost, 1, MPI_INT, 0, kTagEnd, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return lost != 0;
}

}  // namespace

MpiWorld batch_mpi_init() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  }
  g_mpi_initialised = true;
  MpiWorld world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  return world;
}

void batch_mpi_finish(bool rank_lost, int exit_code) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (rank_lost) {
    // MPI_Finalize would wait for the rank that is gone: every live rank leaves without it
    // (rank 0 once the report is written).
    std::_Exit(exit_code);
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

bool run_batch_mpi(const MpiWorld& world, const BatchManifest& manifest, RunBoard* board,
                   const BatchRunSettings& settings, int jobs, double rank_timeout,
                   BatchProgress* progress, const std::function<void()>& tick) {
  if (world.rank != 0) return serve_worker_rank(manifest, settings, jobs);
  // Rank 0: one board for its own worker threads and for the other ranks' requests.
  std::thread local([&] {
    run_worker_threads(
        jobs, manifest, settings, [board] { return board->take(); },
        [board](std::size_t index, BatchRunResult result) { board->store(index, std::move(result)); },
        progress);
  });

  const Clock::time_point start = Clock::now();
  std::vector<Clock::time_point> last_heard(static_cast<std::size_t>(world.size), start);
  std::vector<std::set<std::size_t>> in_flight(static_cast<std::size_t>(world.size));
  std::vector<int> closed(static_cast<std::size_t>(world.size), 0);  // slots told "no more"
  std::vector<bool> lost(static_cast<std::size_t>(world.size), false);
  bool any_lost = false;
  Clock::time_point last_draw = start;
  while (true) {
    const bool all_finished = board->all_finished();
    bool all_closed = true;
    for (int r = 1; r < world.size; ++r) {
      if (!lost[static_cast<std::size_t>(r)] && closed[static_cast<std::size_t>(r)] < jobs) all_closed = false;
    }
    if (all_finished && all_closed) break;

    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    if (flag) {
      const int source = status.MPI_SOURCE;
      const std::size_t s = static_cast<std::size_t>(source);
      last_heard[s] = Clock::now();
      if (status.MPI_TAG == kTagResult) {
        int count = 0;
        MPI_Get_count(&status, MPI_CHAR, &count);
        std::string text(static_cast<std::size_t>(count), '\0');
        MPI_Recv(text.data(), count, MPI_CHAR, source, kTagResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        std::size_t index = 0;
        BatchRunResult result;
        if (!lost[s] && decode_result(text, &index, &result) && in_flight[s].erase(index) > 0) {
          board->store(index, std::move(result));
        }
      } else {
        int ignored = 0;
        MPI_Recv(&ignored, 1, MPI_INT, source, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (status.MPI_TAG == kTagRequest && !lost[s]) {
          std::optional<std::size_t> index = board->take();
          const long long value = index ? static_cast<long long>(*index) : -1;
          MPI_Send(&value, 1, MPI_LONG_LONG, source, kTagAssign, MPI_COMM_WORLD);
          if (index) {
            in_flight[s].insert(*index);
          } else {
            ++closed[s];
          }
        }
      }
      continue;  // drain pending messages before anything else
    }
    // A rank silent for longer than the timeout is given up; its runs are reported as errors.
    for (int r = 1; r < world.size; ++r) {
      const std::size_t s = static_cast<std::size_t>(r);
      if (lost[s] || seconds_since(last_heard[s]) <= rank_timeout) continue;
      if (closed[s] >= jobs && in_flight[s].empty()) continue;  // finished its share
      lost[s] = true;
      any_lost = true;
      char why[128];
      std::snprintf(why, sizeof why, "rank %d stopped responding (no message for %.0f s); its run was not finished",
                    r, rank_timeout);
      for (std::size_t index : in_flight[s]) {
        BatchRunResult result;
        result.entry = missing_run_entry(manifest.runs[index], r, "lost", why);
        board->store(index, std::move(result));
      }
      in_flight[s].clear();
    }
    if (seconds_since(last_draw) >= 0.1) {
      progress->wait_and_draw(std::chrono::milliseconds(0));
      if (tick) tick();
      last_draw = Clock::now();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  local.join();
  progress->wait_and_draw(std::chrono::milliseconds(0));
  for (int r = 1; r < world.size; ++r) {
    if (!lost[static_cast<std::size_t>(r)]) send_int(any_lost ? 1 : 0, r, kTagEnd);
  }
  return any_lost;
}

#endif

}  // namespace impetus::cli
