#include "stage/hsm.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "collect/command_runner.h"
#include "core/input_error.h"
#include "stage/engine.h"
#include "stage/posix_source.h"

namespace trainready::stage {
namespace {

constexpr std::size_t kOutputCap = 64u << 20;

std::vector<std::string> with(std::vector<std::string> argv, const std::vector<std::string>& files,
                              std::size_t from, std::size_t n) {
  for (std::size_t i = from; i < from + n && i < files.size(); ++i) argv.push_back(files[i]);
  return argv;
}

// The released files among `files`, asking `lfs hsm_state` `batch` at a time.
std::vector<std::string> released_of(const std::vector<std::string>& files, const HsmOptions& o,
                                     std::size_t& answered) {
  std::vector<std::string> out;
  answered = 0;
  for (std::size_t i = 0; i < files.size(); i += o.batch) {
    const CommandResult r = run_command(with({"lfs", "hsm_state"}, files, i, o.batch),
                                        o.command_timeout_ms, kOutputCap);
    if (r.timed_out)
      throw InputError(o.dir, 0,
                       "lfs hsm_state did not answer within " +
                           std::to_string(o.command_timeout_ms / 1000) + " s");
    for (const HsmState& s : parse_hsm_state(r.output)) {
      ++answered;
      if (s.released) out.push_back(s.path);
    }
  }
  return out;
}

}  // namespace

std::vector<HsmState> parse_hsm_state(const std::string& output) {
  std::vector<HsmState> v;
  std::size_t pos = 0;
  while (pos < output.size()) {
    std::size_t end = output.find('\n', pos);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(pos, end - pos);
    pos = end + 1;
    // The path may hold ": " itself: the state starts at the last ": (0x".
    const std::size_t m = line.rfind(": (0x");
    if (m == std::string::npos || m == 0) continue;
    const std::size_t close = line.find(')', m);
    if (close == std::string::npos) continue;
    HsmState s;
    s.path = line.substr(0, m);
    const std::string flags = " " + line.substr(close + 1) + " ";
    s.released = flags.find(" released ") != std::string::npos ||
                 flags.find(" released,") != std::string::npos;
    v.push_back(std::move(s));
  }
  return v;
}

StageFacts run_hsm_restore(const HsmOptions& o) {
  StageFacts facts;
  facts.mode = "hsm-restore";
  facts.destination = o.dir;
  const auto t0 = std::chrono::steady_clock::now();
  const CommandResult name = run_command({"lfs", "getname", o.dir}, o.command_timeout_ms, 4096);
  if (!name.found)
    throw InputError(o.dir, 0, "--hsm-restore needs the Lustre client's `lfs` on PATH");
  if (name.timed_out || name.exit_code != 0)
    throw InputError(o.dir, 0, "not on a Lustre file system (`lfs getname` failed)");

  // Every regular file under DIR (the stage's own files excepted), by full path.
  std::vector<std::string> files;
  PosixSource tree(o.dir);
  tree.enumerate(
      [&](const SourceEntry& e) {
        if (e.path.rfind(std::string(kStageDir) + "/", 0) != 0)
          files.push_back(o.dir + "/" + e.path);
        return true;
      },
      [&](const SourceError& e) {
        facts.failed.push_back({e.path(), "list", e.what()});
      });
  facts.files_listed = files.size();

  std::size_t answered = 0;
  std::vector<std::string> released = released_of(files, o, answered);
  facts.hsm_released = released.size();
  if (answered < files.size())
    facts.failed.push_back({"", "hsm-state",
                            "lfs hsm_state answered for " + std::to_string(answered) + " of " +
                                std::to_string(files.size()) + " files"});
  // At most one batch outstanding at the MDS: `lfs hsm_restore` only queues the requests
  // (Microsoft's "Restore data from Blob Storage" for Managed Lustre: the command "doesn't wait
  // for the restore to complete ... can queue up a large number of entries ... overwhelm the
  // metadata server"; its file_restorer.bash waits with `lfs hsm_state` after each batch). So:
  // issue a batch, poll that batch until none of it is released or --hsm-timeout passes, and
  // only then issue the next. A batch that does not finish in time stops the run: its requests
  // are still queued, and a next batch would exceed the bound.
  const std::size_t nbatches = (released.size() + o.batch - 1) / o.batch;
  std::size_t restored = 0;
  std::size_t i = 0;
  for (; i < released.size(); i += o.batch) {
    const std::size_t n = std::min(o.batch, released.size() - i);
    const auto b0 = std::chrono::steady_clock::now();
    const CommandResult r = run_command(with({"lfs", "hsm_restore"}, released, i, n),
                                        o.command_timeout_ms, kOutputCap);
    ++facts.hsm_batches;
    std::vector<std::string> still(released.begin() + static_cast<std::ptrdiff_t>(i),
                                   released.begin() + static_cast<std::ptrdiff_t>(i + n));
    if (r.timed_out || r.exit_code != 0)
      facts.failed.push_back(
          {released[i], "hsm-restore",
           "lfs hsm_restore of a batch of " + std::to_string(n) + " files from " + released[i] +
               (r.timed_out ? " timed out"
                            : " failed (exit " + std::to_string(r.exit_code) + ")")});
    for (;;) {
      // Never a poll before the first wait: the restores were only just queued.
      const double waited =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - b0).count();
      if (waited >= o.timeout_seconds) break;
      std::this_thread::sleep_for(std::chrono::duration<double>(
          std::min(o.poll_seconds, std::max(0.0, o.timeout_seconds - waited))));
      still = released_of(still, o, answered);
      if (still.empty()) break;
    }
    restored += n - still.size();
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - b0).count();
    if (o.on_batch)
      o.on_batch("hsm-restore: batch " + std::to_string(facts.hsm_batches) + " of " +
                 std::to_string(nbatches) + ": " + std::to_string(n - still.size()) + " of " +
                 std::to_string(n) + " files restored in " +
                 std::to_string(static_cast<long long>(took)) + " s (" +
                 std::to_string(restored) + " of " + std::to_string(released.size()) + " in all)");
    for (const std::string& p : still) {
      facts.hsm_still_released.push_back(p);
      facts.failed.push_back({p, "still-released",
                              p + ": still released " +
                                  std::to_string(static_cast<long long>(o.timeout_seconds)) +
                                  " s after its batch was queued (--hsm-timeout)"});
    }
    if (!still.empty()) {
      i += o.batch;
      break;
    }
  }
  if (i < released.size()) {
    const std::size_t left = released.size() - i;
    facts.failed.push_back(
        {released[i], "hsm-not-requested",
         std::to_string(left) + " released file(s) from " + released[i] +
             " not requested: the batch before did not finish within --hsm-timeout, and another "
             "batch would queue more than --hsm-batch restores at the MDS"});
    for (std::size_t k = i; k < released.size(); ++k) facts.hsm_still_released.push_back(released[k]);
  }
  facts.hsm_restored = restored;
  facts.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return facts;
}

}  // namespace trainready::stage
