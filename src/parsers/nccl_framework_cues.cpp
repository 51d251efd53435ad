// Where a job ran, from what its log shows (a container, several hosts): the context
// knowledge/nccl_result_causes.h ranks a result's causes by. Read line by line beside the
// framework-line readers (nccl_framework.cpp).
#include "parsers/nccl_framework_cues.h"

#include <algorithm>
#include <cstring>

#include "core/text.h"
#include "core/utf8.h"

namespace trainready::framework_lines {
namespace {

constexpr std::size_t kQuoteMax = 240;

bool has(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// The first integer after `key` in `t` (past blanks, '=', quotes; "1:4" reads its maximum 4),
// or -1.
int count_after(std::string_view t, std::string_view key) {
  const std::size_t p = t.find(key);
  if (p == std::string_view::npos) return -1;
  std::size_t i = p + key.size();
  while (i < t.size() && i - p < key.size() + 4 && std::strchr(" =\"'", t[i]) != nullptr) ++i;
  int v = -1;
  for (int round = 0; round < 2; ++round) {
    if (i >= t.size() || t[i] < '0' || t[i] > '9') break;
    v = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9' && v < 100000) v = v * 10 + (t[i++] - '0');
    if (i >= t.size() || t[i] != ':') break;
    ++i;
  }
  return v;
}

void cue(std::optional<FrameworkCue>& slot, std::string_view what, std::string_view t,
         const std::string& src, std::uint64_t n) {
  slot = FrameworkCue{std::string(what),
                      clip_text(t, kQuoteMax),
                      {src, static_cast<int>(n > 2147483647u ? 2147483647u : n)}};
}

// The launcher's own options: the line from the launcher's name to the program it starts (the
// first word that is a path, a script or an nccl-tests binary, or a known interpreter).
std::string_view launcher_options(std::string_view t) {
  std::size_t b = t.find("mpirun");
  if (b == std::string_view::npos) b = t.find("mpiexec");
  if (b == std::string_view::npos) b = t.find("horovodrun");
  if (b == std::string_view::npos) return t;
  for (std::size_t p = t.find(' ', b); p != std::string_view::npos && p < t.size();) {
    const std::size_t s = p + 1;
    std::size_t e = t.find(' ', s);
    if (e == std::string_view::npos) e = t.size();
    const std::string_view w = t.substr(s, e - s);
    const bool program = !w.empty() && w[0] != '-' &&
                         (w.find('/') != std::string_view::npos || w.ends_with(".py") ||
                          w.ends_with(".sh") || w.ends_with("_perf") || w == "python" ||
                          w == "python3" || w == "bash" || w == "env" || w == "torchrun");
    if (program) return t.substr(b, s - b);
    p = e;
  }
  return t.substr(b);
}

// A launcher's host list with two or more distinct hosts: Open MPI's mpirun -H / -host / --host
// "host1[:slots],host2[:slots],..." (mpirun(1), Open MPI 4.x and 5.x; "--host=a,b" too), MPICH /
// Intel MPI hydra's -hosts and -host (mpiexec.hydra -help), horovodrun's -H "host1:4,host2:4"
// (horovod/runner/launch.py). Only on a line that names one of those launchers.
void launcher_host_list(std::string_view t, const Bigrams& bg, const std::string& src,
                        std::uint64_t n, FrameworkFacts& out) {
  if (!bg.maybe(" -") || (!has(t, "mpirun") && !has(t, "mpiexec") && !has(t, "horovodrun"))) return;
  static constexpr std::string_view kFlags[] = {
      " -H ",     " -H=",     " -host ",   " -host=", " --host ",
      " --host=", " -hosts ", " --hosts ", " -hosts="};
  for (std::string_view flag : kFlags) {
    const std::size_t p = t.find(flag);
    if (p == std::string_view::npos) continue;
    const std::size_t b = p + flag.size();
    std::size_t e = b;
    while (e < t.size() && t[e] != ' ' && t[e] != '\t' && e - b < 4096) ++e;
    std::string_view list = t.substr(b, e - b);
    if (!list.empty() && (list.front() == '"' || list.front() == '\'')) list.remove_prefix(1);
    if (!list.empty() && (list.back() == '"' || list.back() == '\'')) list.remove_suffix(1);
    // The ranks fill the first host's slots before the next host's (Open MPI's default mapping
    // by slot; a host without ":N" has one slot): "-np 2 -H a:4,b:4" runs on a alone; so does a
    // job of no more ranks than it puts on each node (hydra's -ppn / -perhost, Open MPI's
    // -npernode and --map-by ppr:N:node). Read in the launcher's options only, before the
    // program ("./all_reduce_perf -n 100" is nccl-tests' own iteration count).
    const std::string_view opts = launcher_options(t);
    const int np = std::max(count_after(opts, " -np "),
                            std::max(count_after(opts, " -n "), count_after(opts, " -c ")));
    int ppn = -1;
    for (std::string_view k :
         {" -ppn ", " --ppn ", " -perhost ", " -npernode ", " --npernode ", "ppr:"})
      ppn = std::max(ppn, count_after(opts, k));
    if (np > 0 && ppn >= np) return;
    std::string_view first;
    for (std::size_t i = 0; i <= list.size();) {
      std::size_t c = list.find(',', i);
      if (c == std::string_view::npos) c = list.size();
      std::string_view host = list.substr(i, c - i);
      const std::size_t colon = host.find(':');
      const int slots = colon == std::string_view::npos ? 1 : count_after(host, ":");
      host = host.substr(0, colon);  // "host:slots"
      i = c + 1;
      // A shell variable ("$HOSTS") or a placeholder is no host name.
      if (host.empty() || host.find_first_of("$<>{}") != std::string_view::npos) return;
      if (first.empty()) {
        first = host;
        if (np > 0 && slots >= np) return;
      } else if (host != first) {
        cue(out.launcher_hosts, std::string(trim(flag)) + " " + clip_text(list, 120), t, src, n);
        if (!out.multi_host) out.multi_host = out.launcher_hosts;
        return;
      }
    }
    return;
  }
}

}  // namespace

// Where the job ran, from what the log really shows: knowledge/nccl_result_causes.h ranks a
// result's causes by these.
void context_cues(std::string_view t, const Bigrams& bg, const std::string& src, std::uint64_t n,
                  FrameworkFacts& out) {
  if (!out.container) {
    // Docker's CLI (docs.docker.com; --shm-size / --ipc=host are not cues: they show /dev/shm
    // was already raised, and the line holds `docker run` anyway); the tmpfs a container's 64 MB
    // default limits; NGC's registry (nvcr.io) and its containers' working directory (/workspace,
    // the NGC PyTorch image's WORKDIR); Kubernetes' CLI, its resource names and the
    // KUBERNETES_SERVICE_* variables it sets in every container; Podman, Singularity / Apptainer
    // (their CLIs, and the prompt of `singularity shell` / `apptainer shell`: "Singularity> ",
    // "Apptainer> "), and NVIDIA's enroot / pyxis (srun --container-image).
    static constexpr std::string_view kContainer[] = {
        "docker run",      "docker exec", "nvidia-docker", "/dev/shm",
        "nvcr.io/",        "/workspace/", "kubectl ",      "pod/",
        "KUBERNETES_SERV", "podman run",  "singularity",   "apptainer",
        "Singularity> ",   "Apptainer> ", "enroot ",       "--container-image"};
    for (std::string_view c : kContainer) {
      if (bg.maybe(c) && has(t, c)) {
        cue(out.container, trim(c), t, src, n);
        break;
      }
    }
  }
  if (!out.launcher_hosts) launcher_host_list(t, bg, src, n, out);
  if (out.multi_host) return;
  // Launchers' node counts: torchrun --nnodes (torch/distributed/run.py), DeepSpeed's
  // --num_nodes and its hostfile / pdsh runner (deepspeed/launcher/runner.py), Slurm's
  // SLURM_NNODES / SLURM_JOB_NUM_NODES (sbatch(1)), NNODES in Megatron-LM's example scripts.
  static constexpr std::string_view kCount[] = {
      "--nnodes",    "nnodes=",    "NNODES=",       "--num_nodes",
      "--num-nodes", "num_nodes=", "SLURM_NNODES=", "SLURM_JOB_NUM_NODES="};
  for (std::string_view k : kCount) {
    if (bg.maybe(k) && count_after(t, k) > 1) {
      cue(out.multi_host, trim(k), t, src, n);
      return;
    }
  }
  // srun's word on each task that ended (Slurm src/srun: error("%s: task %s: %s", node, ...)):
  // "srun: error: jwc09n018: task 1: Exited with exit code 1"; a second node is a second host
  // (horovod/horovod#1651).
  if (const std::size_t p =
          bg.maybe("srun: error: ") ? t.find("srun: error: ") : std::string_view::npos;
      p != std::string_view::npos) {
    const std::string_view rest = t.substr(p + 13);
    const std::size_t colon = rest.find(": task");
    if (colon != std::string_view::npos && colon > 0 && colon < 128 &&
        rest.substr(0, colon).find(' ') == std::string_view::npos) {
      const std::string_view node = rest.substr(0, colon);
      if (out.srun_task_node.empty()) {
        out.srun_task_node = std::string(node);
      } else if (node != out.srun_task_node) {
        cue(out.multi_host, "srun: tasks on " + out.srun_task_node + " and " + std::string(node), t,
            src, n);
        if (!out.launcher_hosts) out.launcher_hosts = out.multi_host;
        return;
      }
    }
  }
  static constexpr std::string_view kRunner[] = {"--hostfile", "hostfile=", "pdsh "};
  for (std::string_view k : kRunner) {
    if (bg.maybe(k) && has(t, k)) {
      cue(out.multi_host, trim(k), t, src, n);
      return;
    }
  }
  // A person's words: "multi-node", "two nodes", "2 hosts", and the Chinese 多机 ("several
  // machines", as in 多机多卡 "several machines, several GPUs") and 多节点 ("several nodes").
  static constexpr std::string_view kWords[] = {"ulti-node",
                                                "ulti node",
                                                "ultinode",
                                                "ULTI-NODE",
                                                "\xe5\xa4\x9a\xe6\x9c\xba",
                                                "\xe5\xa4\x9a\xe8\x8a\x82\xe7\x82\xb9"};
  for (std::string_view w : kWords) {
    if (bg.maybe(w) && has(t, w)) {
      cue(out.multi_host, w, t, src, n);
      return;
    }
  }
  for (std::string_view unit :
       {std::string_view(" nodes"), std::string_view(" hosts"), std::string_view(" machines")}) {
    const std::size_t p = bg.maybe(unit) ? t.find(unit) : std::string_view::npos;
    if (p == std::string_view::npos || p == 0) continue;
    std::size_t b = p;
    while (b > 0 && t[b - 1] != ' ' && t[b - 1] != '(' && p - b < 12) --b;
    const std::string before = to_lower(t.substr(b, p - b));
    // Only "on / across / between / over N nodes": "a graph of 12 nodes" is not hosts.
    std::size_t w = b > 0 ? b - 1 : 0;
    while (w > 0 && t[w - 1] != ' ') --w;
    const std::string prev = b > 1 ? to_lower(t.substr(w, b - 1 - w)) : std::string();
    if (prev != "on" && prev != "across" && prev != "between" && prev != "over") continue;
    int count = 0;
    if (!before.empty() && before.size() < 6 &&
        before.find_first_not_of("0123456789") == std::string::npos)
      count = std::stoi(before);
    if (count > 1 || before == "two" || before == "three" || before == "four" ||
        before == "several" || before == "multiple" || before == "many") {
      cue(out.multi_host, t.substr(b, p + unit.size() - b), t, src, n);
      return;
    }
  }
}

}  // namespace trainready::framework_lines
