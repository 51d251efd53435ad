// `trainready nccl LOG...`: explain a distributed run from its NCCL_DEBUG=INFO output, and from
// NCCL's and PyTorch's own telemetry given beside it, told apart by content
// (docs/nccl-telemetry.md): ncclras reports, Flight Recorder dumps, NCCL Inspector output,
// `collect` snapshots and `watch --record` recordings of the job's nodes.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/judge.h"
#include "core/input_error.h"
#include "core/root.h"
#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_recognise.h"
#include "parsers/flight_recorder.h"
#include "parsers/nccl_inspector.h"
#include "parsers/nccl_log.h"
#include "parsers/nccl_ras.h"
#include "parsers/nccl_ras_pasted.h"
#include "parsers/nccl_tests.h"
#include "parsers/nccl_unmarked.h"
#include "probes/probe_options.h"
#include "probes/probes.h"
#include "watch/recording.h"
#include "watch/sample_json.h"
#include "watch/timeline.h"

namespace trainready {
namespace {

namespace fs = std::filesystem;

struct NcclArgs {
  std::vector<std::string> logs;
  SharedFlags flags;
};

// Telemetry is read whole (a pickle has no lines); a larger file can only be a log.
constexpr std::uintmax_t kMaxTelemetryBytes = std::uintmax_t{256} << 20;

struct Inputs {
  std::vector<std::string> logs;
  std::vector<std::string> recordings;
  std::vector<std::string> snapshots;
  std::shared_ptr<CollectiveProgressFacts> progress = std::make_shared<CollectiveProgressFacts>();
};

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path, 0, "read error");
  return s;
}

std::string head_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string s(std::size_t{1} << 16, '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  s.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  return s;
}

// A RAS report inside a job's output: NCCL's own debug lines or PyTorch's around it. (The
// report's first line, "NCCL version X compiled with CUDA Y", alone is no log.)
bool pasted_into_log(const std::string& head) {
  for (const char* mark : {" NCCL INFO ", " NCCL WARN ", "ProcessGroupNCCL", "Watchdog caught"})
    if (head.find(mark) != std::string::npos) return true;
  return false;
}

// One regular file: telemetry, a recording, or (anything else) a log for the log analyser.
void classify_file(const std::string& path, Inputs& in) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec || size > kMaxTelemetryBytes) {
    in.logs.push_back(path);
    return;
  }
  const std::string head = head_of(path);
  if (head.find(std::string("\"format\":\"") + watch::kRecordingFormat + "\"") !=
      std::string::npos) {
    in.recordings.push_back(path);
    return;
  }
  CollectiveProgressFacts& p = *in.progress;
  if (looks_like_ras_output(head)) {
    p.ras.push_back(parse_ras_output(read_whole(path), path));
    // A job's output with the report pasted into it: the framework's lines are read too.
    if (pasted_into_log(head)) in.logs.push_back(path);
  } else if (looks_like_flight_recorder(head)) {
    p.flight_recorder.push_back(parse_flight_recorder(read_whole(path), path));
  } else if (looks_like_nccl_inspector(head)) {
    parse_nccl_inspector(read_whole(path), path, p.inspector, p.notes);
  } else {
    in.logs.push_back(path);
    return;
  }
  p.files.push_back(path);
}

Inputs classify(const std::vector<std::string>& paths) {
  Inputs in;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (p == "-" || !fs::is_directory(p, ec)) {
      if (p == "-" || !fs::is_regular_file(p, ec))
        in.logs.push_back(p);  // stdin, or the log reader's own "cannot open" error
      else
        classify_file(p, in);
      continue;
    }
    if (fs::exists(fs::path(p) / std::string(kSnapManifest).substr(1), ec)) {
      in.snapshots.push_back(p);
      continue;
    }
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      std::error_code ec2;
      if (e.is_regular_file(ec2)) files.push_back(e.path().string());
    }
    if (ec) throw InputError(p, 0, "cannot list directory: " + ec.message());
    std::sort(files.begin(), files.end());
    if (files.empty()) in.logs.push_back(p);  // the log reader names an empty directory
    for (const std::string& f : files) classify_file(f, in);
  }
  return in;
}

std::shared_ptr<WatchFacts> replay(const std::vector<std::string>& recordings) {
  auto facts = std::make_shared<WatchFacts>();
  const watch::Thresholds t;
  facts->mode = "replay";
  facts->hang_after_s = t.hang_after_s;
  for (const std::string& path : recordings) {
    watch::Timeline timeline(watch::IntervalOptions{}, t);
    std::string node;
    watch::read_recording(
        path,
        [&](const watch::RecordingHeader& h) {
          if (node.empty()) node = h.host.empty() ? path : h.host + " (" + path + ")";
        },
        [&](const watch::Sample& s, int) { (void)timeline.add(s); });
    timeline.summary().set_node(node);
    facts->nodes.push_back(timeline.summary().facts());
  }
  return facts;
}

// nccl-tests' output without NCCL's lines (run without NCCL_DEBUG, or only its summary pasted:
// "# Out of bounds values : 248 FAILED", nccl-tests src/util.cu:777 @ v2.19.6): judged as
// `trainready nccl-tests` judges it. The first file the nccl-tests reader reads; none when no
// file holds a result table or its summary.
std::shared_ptr<NcclTestsFacts> nccl_tests_summary(const std::vector<std::string>& logs) {
  for (const std::string& p : logs) {
    std::error_code ec;
    if (p == "-" || !fs::is_regular_file(p, ec)) continue;
    const std::string head = head_of(p);
    if (!looks_like_nccl_tests(head) && head.find("Out of bounds values") == std::string::npos)
      continue;
    try {
      return std::make_shared<NcclTestsFacts>(parse_nccl_tests_file(p));
    } catch (const InputError&) {
    }
  }
  return nullptr;
}

// No NCCL output in `logs`: exit 2, saying what the log held and what to capture instead.
[[noreturn]] void refuse(const std::vector<std::string>& logs) {
  std::string msg = kNoNcclOutput;
  if (auto l = first_error_like_line(logs))
    msg += "; its first error line, " + l->where.str() + ", '" + l->text +
           "', is not a message of NCCL, CUDA or the verbs library this tool knows";
  msg +=
      ". Capture the failing run again with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET for "
      "init and network failures) and NCCL_DEBUG_FILE=/tmp/nccl.%h.%p.log (one file per rank), "
      "keep the framework's full traceback, and give those files";
  throw InputError(logs.front(), 0, msg);
}

int run_nccl(const NcclArgs& a) {
  a.flags.check();  // bad options fail before the log is read
  Report r = start_report("nccl", a.flags);
  Inputs in = classify(a.logs.empty() ? std::vector<std::string>{"-"} : a.logs);
  bool telemetry = !in.progress->empty();
  if (!in.logs.empty()) {
    auto log = std::make_shared<NcclRunFacts>(analyze_nccl_logs(in.logs));
    if (log->streams.empty()) {
      // No NCCL record: NCCL's own message text without its head (an excerpt, a title, a bare
      // line under a framework's error) and the CUDA / verbs error strings under it are read by
      // the knowledge base's matchers before the log is refused (issue 30); beside a
      // framework's lines, only the lines not read already.
      const NcclTextRecogniser recognise(NcclKnowledgeBase::builtin());
      read_unmarked_nccl_lines(
          in.logs,
          [&](std::string_view t) -> std::optional<NcclUnmarkedText> {
            auto got = recognise.read(t);
            if (!got) return std::nullopt;
            return NcclUnmarkedText{std::move(got->text), got->info};
          },
          *log, has_nccl_output(*log));
    }
    // An ncclras report pasted inside a log, past its head (issue 30): judged with the rest.
    const std::set<std::string> whole(in.progress->files.begin(), in.progress->files.end());
    for (RasReport& ras : read_pasted_ras(log->framework.ras_reports, whole)) {
      in.progress->files.push_back(ras.source);
      in.progress->ras.push_back(std::move(ras));
      telemetry = true;
    }
    if (has_nccl_output(*log)) {
      // nccl-tests run with NCCL_DEBUG=INFO write their table into the same log: judge the
      // table beside the log, as `nccl-tests --nccl-log` does. Stdin cannot be read twice.
      // Run headers alone count too: processes that each printed their own hold the cause.
      if (!log->nccl_tests_file.empty() && log->nccl_tests_file != "-") {
        try {
          r.nccl_tests =
              std::make_shared<NcclTestsFacts>(parse_nccl_tests_file(log->nccl_tests_file));
        } catch (const InputError&) {
          // Only a summary line the reader cannot take ("Out of bounds values : n/a" in prose),
          // or one run's header with no table: the log is judged without nccl-tests' facts.
        }
      }
      // Only a version line (vLLM's "is using nccl==X", a bare banner): nothing to judge, so
      // nccl-log-unplaced says what the input holds and what to capture.
      if (has_only_nccl_versions(*log) && !telemetry) read_nccl_mentions(in.logs, *log);
      r.nccl_log = std::move(log);
    } else if (auto t = nccl_tests_summary(in.logs)) {
      r.nccl_tests = std::move(t);  // nccl-tests' own output, without NCCL_DEBUG lines
    } else if (log->nccl_tests_devices && !telemetry) {
      // nccl-tests listed its GPUs and printed nothing after (no table, no NCCL line): what
      // nccl-tests-stopped reads, not an input to refuse.
      r.nccl_log = std::move(log);
    } else if (!telemetry) {
      // Nothing this tool reads, but lines that name NCCL or nccl-tests (a title, a command, a
      // health check's verdict): the nccl-log-unplaced finding says what they are and what to
      // capture (issue 30: never refused while it holds NCCL's name). Else exit 2.
      read_nccl_mentions(in.logs, *log);
      if (log->mentions.empty()) refuse(in.logs);
      r.nccl_log = std::move(log);
    }
  } else if (!telemetry) {
    throw InputError(a.logs.front(), 0,
                     "holds neither a NCCL log nor NCCL RAS / Flight Recorder / Inspector output "
                     "(snapshots and recordings are read beside those, not alone)");
  }
  for (const std::string& s : in.snapshots) {
    FsRoot root(s);
    require_snapshot_root(root, s);
    r.nodes.push_back(probe_node(root, ProbeOptions{}));
  }
  if (!in.recordings.empty()) r.watch = replay(in.recordings);
  if (telemetry) r.progress = std::move(in.progress);
  return judge_and_emit(r, a.flags);
}

}  // namespace

Runner add_nccl_command(CLI::App& app) {
  auto a = std::make_shared<NcclArgs>();
  CLI::App* c = app.add_subcommand(
      "nccl",
      "Explain a run from its NCCL_DEBUG=INFO log: transports, InfiniBand and GPUDirect RDMA, "
      "channels and algorithms, hangs, errors; an nccl-tests table in the same log is judged "
      "with it. ncclras reports, PyTorch Flight Recorder dumps and NCCL Inspector output given "
      "beside it name the ranks behind and their nodes (with `collect` snapshots and `watch` "
      "recordings of those nodes, the path that holds them)");
  c->add_option("logs", a->logs,
                "Log files, directories of per-rank logs, gzip files; ncclras output, Flight "
                "Recorder dumps, Inspector logs, snapshot directories, watch recordings (told "
                "apart by content); '-' or nothing reads a log from stdin");
  add_shared_flags(c, a->flags,
                   kReportFlags | kRuleFlags | kSkuFlag | kRunScaleFlags | kCatalogFlag);
  return [a] { return run_nccl(*a); };
}

}  // namespace trainready
