#include "collect/collect.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "codec/node_facts_json.h"
#include "collect/command_runner.h"
#include "collect/recording_root.h"
#include "collect/scrub.h"
#include "core/input_error.h"
#include "core/temp_files.h"
#include "health/health_sample.h"
#include "parsers/imds.h"
#include "probes/probes.h"

namespace trainready {
namespace {

namespace fs = std::filesystem;

struct CommandSpec {
  const char* file;
  std::vector<std::string> argv;
};

const CommandSpec kCommands[] = {
    {"ibstat.txt", {"ibstat"}},
    {"ibv_devinfo-v.txt", {"ibv_devinfo", "-v"}},
    {"ofed_info-s.txt", {"ofed_info", "-s"}},
    {"nvidia-smi.txt", {"nvidia-smi"}},
    // ECC, remapped rows, PCIe replays, clocks event reasons: what `health` keeps over time.
    {"nvidia-smi-q.txt", {"nvidia-smi", "-q"}},
    {"nvidia-smi-topo-m.txt", {"nvidia-smi", "topo", "-m"}},
    {"lspci-vvv.txt", {"lspci", "-nn", "-vvv"}},
    {"dmesg.txt", {"dmesg", "-T"}},       // the kernel ring buffer: Xid lines (gpu-xid-errors)
    {"health-s.json", {"health", "-s"}},  // CycleCloud healthagent (healthagent-disagrees)
};

bool is_kernel_log_file(const std::string& path) {
  for (const char* p : kKernelLogFiles)
    if (path == p) return true;
  return false;
}

// The kernel log the probe read, cut to what the doctor judges: its first and last line (how far
// it reaches) and every NVIDIA driver (NVRM) line. A week of /var/log/kern.log stays out of the
// snapshot; the Xid evidence stays in.
std::string kernel_log_excerpt(const std::string& path, const std::string& data) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < data.size()) {
    std::size_t end = data.find('\n', start);
    if (end == std::string::npos) end = data.size();
    lines.emplace_back(data.data() + start, end - start);
    start = end + 1;
  }
  std::string out = "# trainready collect: NVRM lines of " + path + " (" +
                    std::to_string(lines.size()) + " lines), with its first and last line\n";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i == 0 || i + 1 == lines.size() || lines[i].find("NVRM:") != std::string_view::npos) {
      out.append(lines[i]);
      out += '\n';
    }
  }
  return out;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

class SnapshotWriter {
 public:
  SnapshotWriter(fs::path dir, const Scrubber* scrub) : dir_(std::move(dir)), scrub_(scrub) {}

  void file(const std::string& node_path, std::string_view data) {
    fs::path p = target(node_path);
    fs::create_directories(p.parent_path());
    std::string content = scrub_ ? scrub_->apply(data) : std::string(data);
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f.write(content.data(), static_cast<std::streamsize>(content.size()));
    f.close();
    if (!f) throw std::runtime_error(p.string() + ": write failed: " + std::strerror(errno));
    ++files_;
  }
  void dir(const std::string& node_path) { fs::create_directories(target(node_path)); }
  void link(const std::string& node_path, const std::string& target_text) {
    fs::path p = target(node_path);
    fs::create_directories(p.parent_path());
    std::error_code ec;
    if (fs::exists(fs::symlink_status(p, ec))) return;
    fs::create_symlink(target_text, p, ec);  // only read with readlink; dangling is fine
  }
  std::size_t files() const { return files_; }

 private:
  fs::path target(const std::string& node_path) const {
    std::string rel = node_path;
    while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
    if (rel.find("..") != std::string::npos)
      throw std::runtime_error("refusing path with '..': " + node_path);
    return dir_ / rel;
  }
  fs::path dir_;
  const Scrubber* scrub_;
  std::size_t files_ = 0;
};

void collect_identifiers(Scrubber& s, const NodeFacts& n, const std::string& imds_body) {
  if (n.host.ok()) s.add_literal(n.host->hostname, "host");
  if (!imds_body.empty()) {
    try {
      ImdsInfo i = parse_imds(imds_body, "imds");
      s.add_literal(i.name, "vm");
      s.add_literal(i.vmss_name, "vmss");
      auto doc = nlohmann::json::parse(imds_body);
      const auto& c = doc.contains("compute") ? doc["compute"] : doc;
      for (const char* k : {"resourceGroupName", "computerName"}) {
        if (c.contains(k) && c[k].is_string()) s.add_literal(c[k].get<std::string>(), "name");
      }
      if (c.contains("osProfile") && c["osProfile"].is_object()) {
        for (const char* k : {"computerName", "adminUsername"}) {
          if (c["osProfile"].contains(k) && c["osProfile"][k].is_string())
            s.add_literal(c["osProfile"][k].get<std::string>(), "name");
        }
      }
    } catch (const std::exception&) {
      // An unparsable IMDS body is still written (scrubbed of GUIDs); nothing more to learn here.
    }
  }
  if (n.gpus.ok()) {
    for (const auto& g : n.gpus->gpus) s.add_literal(g.serial, "serial");
  }
  if (n.scratch.ok()) {
    for (const auto& ns : n.scratch->namespaces) s.add_literal(ns.serial, "serial");
  }
}

// An interrupted run of ours on this host (killed before its handler ran: SIGKILL, a power cut)
// left OUT.tmp-HOST.PID.XXXXXX behind: remove it once that process is gone. Nothing else.
void remove_stale_temporaries(const fs::path& out) {
  const std::string prefix = out.filename().string() + ".tmp-";
  std::error_code ec;
  for (fs::directory_iterator it(out.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() < prefix.size() + 7 || name.rfind(prefix, 0) != 0) continue;
    const std::string tag = name.substr(prefix.size(), name.size() - prefix.size() - 7);
    if (name[name.size() - 7] != '.' || !temp_tag_is_stale(tag)) continue;
    std::error_code ec2;
    if (it->is_directory(ec2) && !it->is_symlink(ec2)) remove_tree(it->path().string());
  }
}

}  // namespace

CollectSummary collect_snapshot(const CollectOptions& opt) {
  CollectSummary sum;
  fs::path out = fs::absolute(opt.out_dir).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();
  std::error_code ec;
  if (fs::exists(out, ec) && !(fs::is_directory(out, ec) && fs::is_empty(out, ec))) {
    throw InputError(
        opt.out_dir, 0,
        "already exists and is not an empty directory; choose a new snapshot directory");
  }
  if (!fs::is_directory(out.parent_path(), ec)) {
    throw InputError(opt.out_dir, 0,
                     "parent directory " + out.parent_path().string() + " does not exist");
  }

  FsRoot source(opt.source_root);
  require_snapshot_root(source, opt.source_root);  // the doctor's check for the same --root
  RecordingRoot rec(source);
  ProbeOptions popt = opt.probe;
  popt.imds_disabled = true;  // fetched once below, raw, so the snapshot keeps the response itself
  NodeFacts facts = probe_node(rec, popt);
  // The IB error counters `health --replay` reads (docs/health.md); a counter that is not a
  // number is kept as read, for `health` to name.
  try {
    (void)read_health_ports(rec);
  } catch (const InputError&) {
  }

  // Live-only sources.
  std::string imds_body;
  if (!opt.probe.imds_disabled) {
    std::optional<std::string> url = opt.probe.imds_url;
    if (!url && source.is_live() && facts.dmi.ok() && facts.dmi->azure) url = kDefaultImdsUrl;
    if (!url && !source.is_live()) {
      if (FileRead r = source.read_file(kSnapImds, kLargeFileLimit); r.ok()) imds_body = r.data;
    }
    if (url) {
      Fact<std::string> body = fetch_imds(*url, opt.probe.imds_timeout_ms);
      if (body.ok())
        imds_body = body.value;
      else
        sum.notes.push_back("IMDS: " + body.reason);
    }
  }
  const Fact<GpuFacts>& gpus = facts.gpus;  // NVML was asked once, by the probe run above
  const Fact<std::string>& nccl_version = facts.nccl_version;
  // The NCCL_*/UCX_* variables the probe already took from the environment, --env-file or the
  // source snapshot: the snapshot records exactly what the doctor judged.
  std::string environ_text;
  if (facts.nccl.ok()) {
    for (const auto& [k, v] : facts.nccl->env) environ_text += k + "=" + v + "\n";
  }

  Scrubber scrubber;
  if (opt.scrub) collect_identifiers(scrubber, facts, imds_body);

  remove_stale_temporaries(out);
  // OUT.tmp-HOST.PID.XXXXXX: removed on SIGINT/SIGTERM, and by a later run once PID is gone.
  fs::path tmp = out.parent_path() / (out.filename().string() + ".tmp-" + temp_tag() + ".XXXXXX");
  std::string tmpl = tmp.string();
  std::optional<SignalsHeld> held(std::in_place);  // until the guard knows the name
  if (::mkdtemp(tmpl.data()) == nullptr) {
    throw std::runtime_error(out.parent_path().string() +
                             ": cannot create a temporary directory: " + std::strerror(errno));
  }
  fs::path work(tmpl);
  TempGuard guard(work.string(), /*directory=*/true);
  held.reset();
  ::chmod(work.c_str(), 0755);
  try {
    SnapshotWriter w(work, opt.scrub ? &scrubber : nullptr);
    for (const auto& [path, _] : rec.dirs()) w.dir(path);
    std::string kernel_log;
    for (const auto& [path, data] : rec.files()) {
      if (kernel_log.empty() && (is_kernel_log_file(path) || path == kSnapKernelLog))
        kernel_log = path == kSnapKernelLog ? data : kernel_log_excerpt(path, data);
      if (std::string(path).rfind(kSnapDir, 0) == 0)
        continue;                              // re-collecting a snapshot: rewritten below
      if (is_kernel_log_file(path)) continue;  // only its NVRM lines, below
      w.file(path, data);
    }
    if (!kernel_log.empty()) w.file(kSnapKernelLog, kernel_log);
    for (const auto& [path, target] : rec.links())
      w.link(path, opt.scrub ? scrubber.apply(target) : target);
    w.dir(kSnapCommands);
    if (!imds_body.empty()) w.file(kSnapImds, imds_body);
    if (gpus.ok()) w.file(kSnapNvml, gpu_facts_to_json(*gpus).dump(2) + "\n");
    if (facts.imex_channels.ok()) {  // device nodes are not copied: their names are
      std::string names;
      for (const std::string& c : facts.imex_channels.value) names += c + "\n";
      w.file(kSnapImexChannels, names);
    }
    if (facts.ib_char_devices.ok())  // device nodes are not copied: their names are
      w.file(kSnapIbCharDevs, ib_char_dev_listing(*facts.ib_char_devices));
    w.file(kSnapEnviron, environ_text);
    if (nccl_version.ok()) w.file(kSnapNcclVersion, nccl_version.value + "\n");
    nlohmann::json commands = nlohmann::json::array();
    if (opt.run_commands && source.is_live()) {
      for (const CommandSpec& c : kCommands) {
        CommandResult r = run_command(c.argv, opt.command_timeout_ms, kLargeFileLimit);
        if (!r.found) continue;
        std::string argv;
        for (const auto& a : c.argv) argv += (argv.empty() ? "" : " ") + a;
        commands.push_back({{"argv", argv},
                            {"exit_code", r.exit_code},
                            {"timed_out", r.timed_out},
                            {"file", c.file}});
        sum.commands.push_back(argv + ": " +
                               (r.timed_out ? "timed out" : "exit " + std::to_string(r.exit_code)));
        if (!r.output.empty()) w.file(std::string(kSnapCommands) + "/" + c.file, r.output);
      }
    } else if (!source.is_live()) {
      for (const CommandSpec& c : kCommands) {
        if (FileRead r =
                source.read_file(std::string(kSnapCommands) + "/" + c.file, kLargeFileLimit);
            r.ok()) {
          w.file(std::string(kSnapCommands) + "/" + c.file, r.data);
        }
      }
    }
    nlohmann::json unreadable = nlohmann::json::object();
    for (const auto& [p, e] : rec.unreadable()) unreadable[p] = e;
    nlohmann::json manifest{{"schema_version", 1},
                            {"tool", "trainready"},
                            {"tool_version", opt.tool_version},
                            {"collected_at", utc_now()},
                            {"source_root", opt.source_root},
                            {"scrubbed", opt.scrub},
                            {"hostname", facts.host.ok() ? facts.host->hostname : ""},
                            {"commands", commands},
                            {"unreadable_at_collection", unreadable},
                            {"notes", sum.notes}};
    w.file(kSnapManifest, manifest.dump(2) + "\n");
    sum.files = w.files();
    if (::rename(work.c_str(), out.c_str()) != 0) {
      throw std::runtime_error(out.string() +
                               ": cannot move the snapshot into place: " + std::strerror(errno));
    }
  } catch (...) {
    fs::remove_all(work, ec);
    throw;
  }
  sum.out_dir = out.string();
  return sum;
}

}  // namespace trainready
