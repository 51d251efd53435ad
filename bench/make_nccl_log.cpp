// Writes an NCCL_DEBUG=INFO log of at least N bytes shaped like a real large job's: `hosts` VMs x
// 8 GPUs (ND H100 v5: 8 HCAs, NVLink inside the VM), NCCL 2.21.5 with its default debug mask
// (INIT | ENV, src/debug.cc v2.21.5-1), launcher-prefixed ("[rankN]: "), ranks interleaved.
//
// What such a log holds, and so what this writes (format strings from NVIDIA/nccl v2.21.5-1):
//   init    per rank: bootstrap, plugin, HCAs, env, Init START/COMPLETE, affinity, timings
//           (init.cc, net_ib.cc);
//   ring    "Trees [0] ..." per rank and rank 0's "Channel %02d/%02d :" ring listing
//           (graph/connect.cc, graph/rings.cc);
//   conn    "Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/IB/%d/GDRDMA" and P2P lines
//           (transport/net.cc, transport/p2p.cc): the ring and tree of the world communicator,
//           the NVLink rings of each node's tensor-parallel communicator, then the point-to-point
//           connections NCCL opens lazily, per peer, as pipeline stages and all-to-alls start;
//           these dominate a large job's log;
//   app     the training script's own output (step, loss, throughput);
//   warn    NCCL WARN lines (net_ib.cc "NET/IB : %s:%d Got async event : %s").
// Collective lines (opCount, "Bytes -> Algo") need NCCL_DEBUG_SUBSYS=COLL / TUNING, which large
// jobs leave off; KIND `coll` writes them on their own, to time that path too.
//
//   make_nccl_log OUT BYTES [HOSTS] [KIND]   KIND: mix (default), init, ring, conn, app, warn,
//   coll,
//                                            pids
// KIND `pids` writes connection lines each behind a host:pid seen on no other line (a log of
// many short jobs, or a launcher that rewrites ids): millions of rank streams, for the
// analyser's memory bound.
// A single KIND repeats that kind of line until BYTES are written (the per-kind throughput).
// Prints the bytes and lines written per kind to stderr.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

enum Kind { kInit, kRing, kConn, kApp, kWarn, kColl, kKinds };
const char* const kKindNames[kKinds] = {"init", "ring", "conn", "app", "warn", "coll"};

struct Writer {
  std::FILE* f = nullptr;
  unsigned long long target = 0;
  unsigned long long written = 0;
  unsigned long long bytes[kKinds] = {};
  unsigned long long lines[kKinds] = {};
  bool done() const { return written >= target; }
  template <class... A>
  void out(Kind k, const char* fmt, A... a) {
    int n = std::fprintf(f, fmt, a...);
    if (n > 0) {
      written += static_cast<unsigned long long>(n);
      bytes[k] += static_cast<unsigned long long>(n);
      ++lines[k];
    }
  }
};

constexpr int kGpus = 8;
constexpr int kChannels = 32;  // ND H100 v5: 32 coll channels per communicator

struct Job {
  int hosts;
  int ranks;
  int host(int r) const { return r / kGpus; }
  int pid(int r) const { return 10000 + r; }
  int tid(int r) const { return pid(r) + 40; }
};

// "[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO "
#define HEAD "[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO "
#define HARGS(r) r, j.host(r), j.pid(r), j.tid(r), (r) % kGpus

void init_rank(Writer& w, const Job& j, int r) {
  w.out(kInit, HEAD "Bootstrap : Using eth0:10.%d.%d.4<0>\n", HARGS(r), j.host(r) / 250,
        j.host(r) % 250);
  w.out(kInit, HEAD "cudaDriverVersion 12040\n", HARGS(r));
  w.out(kInit,
        HEAD
        "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such "
        "file or directory No plugin found (libnccl-net.so), using internal implementation\n",
        HARGS(r));
  w.out(kInit, HEAD "NCCL_TOPO_FILE set by environment to /opt/microsoft/ndv5-topo.xml\n",
        HARGS(r));
  w.out(kInit, HEAD "NCCL_IB_PCI_RELAXED_ORDERING set by environment to 1.\n", HARGS(r));
  w.out(kInit, HEAD "NCCL_SOCKET_IFNAME set by environment to eth0\n", HARGS(r));
  w.out(kInit,
        HEAD
        "NET/IB : Using [0]mlx5_ib0:1/IB [1]mlx5_ib1:1/IB [2]mlx5_ib2:1/IB [3]mlx5_ib3:1/IB "
        "[4]mlx5_ib4:1/IB [5]mlx5_ib5:1/IB [6]mlx5_ib6:1/IB [7]mlx5_ib7:1/IB [RO]; OOB "
        "eth0:10.%d.%d.4<0>\n",
        HARGS(r), j.host(r) / 250, j.host(r) % 250);
  w.out(kInit, HEAD "Using non-device net plugin version 0\n", HARGS(r));
  w.out(kInit, HEAD "Using network IB\n", HARGS(r));
  w.out(kInit, HEAD "DMA-BUF is available on GPU device %d\n", HARGS(r), r % kGpus);
  w.out(kInit,
        HEAD
        "ncclCommInitRank comm 0x7f%06x rank %d nranks %d cudaDev %d nvmlDev %d busId "
        "%d00000 commId 0x4e5f60718293a4b5 - Init START\n",
        HARGS(r), r, r, j.ranks, r % kGpus, r % kGpus, r % kGpus);
  w.out(kInit, HEAD "Setting affinity for GPU %d to ffffff,00000000,00ffffff\n", HARGS(r),
        r % kGpus);
  w.out(kInit, HEAD "comm 0x7f%06x rank %d nRanks %d nNodes %d localRanks 8 localRank %d MNNVL 0\n",
        HARGS(r), r, r, j.ranks, j.hosts, r % kGpus);
}

void trees_rank(Writer& w, const Job& j, int r) {
  // "Trees [0] up/-1/-1->rank->down ..." for every channel, one line (graph/connect.cc).
  char line[2048];
  int n = 0;
  for (int c = 0; c < kChannels && n < 1900; ++c)
    n +=
        std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), " [%d] %d/-1/-1->%d->%d",
                      c, (r + 1) % j.ranks, r, (r + j.ranks - 1) % j.ranks);
  w.out(kRing, HEAD "Trees%s\n", HARGS(r), line);
  w.out(kRing, HEAD "P2P Chunksize set to 524288\n", HARGS(r));
}

void ring_listing(Writer& w, const Job& j) {
  // Rank 0 only: "Channel %02d/%02d : " then at most 20 ranks as " %3d", padded to 115 chars.
  for (int c = 0; c < kChannels; ++c) {
    char line[200];
    int n = std::snprintf(line, sizeof line, "Channel %02d/%02d : ", c, kChannels);
    for (int i = 0; i < 20 && i < j.ranks; ++i)
      n += std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), " %3d", i);
    w.out(kRing, HEAD "%-115s\n", HARGS(0), line);
  }
}

// One connection line of rank r to peer p on channel c, connIndex ci (0 ring/tree, 1 p2p).
void conn(Writer& w, const Job& j, int r, int p, int c, int ci) {
  if (j.host(r) == j.host(p)) {
    w.out(kConn, HEAD "Channel %02d/%d : %d[%d] -> %d[%d] via P2P/CUMEM/read\n", HARGS(r), c, ci, r,
          r % kGpus, p, p % kGpus);
  } else {
    w.out(kConn, HEAD "Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/IB/%d/GDRDMA%s\n",
          HARGS(r), c, ci, r, r % kGpus, p, p % kGpus, r % kGpus, ci ? "/Shared" : "");
    w.out(kConn, HEAD "Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/IB/%d/GDRDMA%s\n",
          HARGS(r), c, ci, p, p % kGpus, r, r % kGpus, r % kGpus, ci ? "/Shared" : "");
  }
}

void finish_rank(Writer& w, const Job& j, int r) {
  w.out(kInit, HEAD "Connected all rings\n", HARGS(r));
  w.out(kInit, HEAD "Connected all trees\n", HARGS(r));
  w.out(kInit, HEAD "threadThresholds 8/8/64 | 32768/8/64 | 512 | 512\n", HARGS(r));
  w.out(kInit,
        HEAD
        "32 coll channels, 32 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p "
        "channels per peer\n",
        HARGS(r));
  w.out(kInit,
        HEAD
        "ncclCommInitRank comm 0x7f%06x rank %d nranks %d cudaDev %d nvmlDev %d busId "
        "%d00000 commId 0x4e5f60718293a4b5 - Init COMPLETE\n",
        HARGS(r), r, r, j.ranks, r % kGpus, r % kGpus, r % kGpus);
  w.out(kInit,
        HEAD
        "Init timings: rank %d nranks %d total 2.41 (kernels 0.21, bootstrap 1.52, "
        "allgathers 0.02, topo 0.11, graphs 0.01, connections 0.49, rest 0.05)\n",
        HARGS(r), r, j.ranks);
}

void app(Writer& w, int r, unsigned long long step) {
  w.out(kApp,
        "[rank%d]: [2026-12-01 10:%02llu:%02llu] iteration %llu/ 100000 | consumed samples: %llu | "
        "elapsed time per iteration (ms): 5123.4 | learning rate: 2.999E-04 | lm loss: %.6E | "
        "grad norm: 0.412 | tokens/s: %d\n",
        r, (step / 60) % 60, step % 60, step, step * 2048,
        2.0 + 1.0 / static_cast<double>(step + 1), 180000 + r);
}

void warn(Writer& w, const Job& j, int r) {
  w.out(kWarn,
        "[rank%d]: ndv5-%04d:%d:%d [%d] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_ib%d:1 Got "
        "async event : port active\n",
        HARGS(r), r % kGpus);
}

void coll(Writer& w, const Job& j, int r, unsigned long long op) {
  w.out(kColl,
        HEAD
        "AllReduce: opCount %llx sendbuff 0x7f2a00000000 recvbuff 0x7f2a00000000 count "
        "262144000 datatype 9 op 0 root 0 comm 0x7f%06x [nranks=%d] stream 0x5601c0\n",
        HARGS(r), op, r, j.ranks);
  if (r == 0)
    w.out(kColl,
          HEAD "AllReduce: 524288000 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..31}\n",
          HARGS(r));
}

// A realistic job: the world communicator's init, every node's tensor-parallel communicator,
// then training, during which ranks open point-to-point connections to new peers.
void mix(Writer& w, const Job& j) {
  for (int r = 0; r < j.ranks; ++r) init_rank(w, j, r);
  w.out(kInit, "NCCL version 2.21.5+cuda12.4\n");
  for (int r = 0; r < j.ranks; ++r) trees_rank(w, j, r);
  ring_listing(w, j);
  // World ring: GPU 0 of each VM receives from the previous VM, GPU 7 sends to the next.
  for (int r = 0; r < j.ranks; ++r)
    for (int c = 0; c < kChannels; ++c) conn(w, j, r, (r + 1) % j.ranks, c, 0);
  for (int r = 0; r < j.ranks; ++r) finish_rank(w, j, r);
  // Tensor-parallel communicators, one per VM: 8 ranks on NVLink.
  for (int r = 0; r < j.ranks; ++r)
    for (int c = 0; c < kChannels; ++c) conn(w, j, r, j.host(r) * kGpus + (r + 1) % kGpus, c, 0);
  // Training: each step, every rank connects to a few new peers (pipeline neighbours, all-to-all
  // partners) on 2 channels, rank 0 of each VM reports progress, a port event now and then.
  unsigned long long step = 0;
  while (!w.done()) {
    for (int r = 0; r < j.ranks && !w.done(); ++r) {
      const int peer = static_cast<int>((static_cast<unsigned long long>(r) + 1 + step * 97) %
                                        static_cast<unsigned long long>(j.ranks));
      for (int c = 0; c < 2; ++c) conn(w, j, r, peer, c, 1);
      if (r % kGpus == 0) app(w, r, step);
      if (r % 4096 == 17 && step % 8 == 3) warn(w, j, r);
    }
    ++step;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_nccl_log OUT BYTES [HOSTS] [KIND]\n");
    return 2;
  }
  Writer w;
  w.target = std::strtoull(argv[2], nullptr, 10);
  Job j;
  j.hosts = argc > 3 ? std::atoi(argv[3]) : 512;
  if (j.hosts < 1) j.hosts = 1;
  j.ranks = j.hosts * kGpus;
  const std::string kind = argc > 4 ? argv[4] : "mix";
  w.f = std::fopen(argv[1], "w");
  if (!w.f) return 2;
  std::setvbuf(w.f, nullptr, _IOFBF, 1 << 20);
  unsigned long long i = 0;
  // A one-kind file starts with rank 0's banner, so a file of script output alone is still a
  // NCCL log to the analyser (it refuses input without any NCCL line).
  if (kind != "mix") w.out(kInit, "NCCL version 2.21.5+cuda12.4\n");
  if (kind == "mix") {
    mix(w, j);
  } else if (kind == "init") {
    while (!w.done()) init_rank(w, j, static_cast<int>(i++ % static_cast<unsigned>(j.ranks)));
  } else if (kind == "ring") {
    while (!w.done()) trees_rank(w, j, static_cast<int>(i++ % static_cast<unsigned>(j.ranks)));
  } else if (kind == "conn") {
    while (!w.done()) {
      const int r = static_cast<int>(i % static_cast<unsigned>(j.ranks));
      conn(w, j, r, static_cast<int>((i * 97 + 1) % static_cast<unsigned>(j.ranks)),
           static_cast<int>(i % kChannels), 1);
      ++i;
    }
  } else if (kind == "app") {
    while (!w.done()) app(w, static_cast<int>(i % static_cast<unsigned>(j.ranks)), i), ++i;
  } else if (kind == "warn") {
    while (!w.done()) warn(w, j, static_cast<int>(i++ % static_cast<unsigned>(j.ranks)));
  } else if (kind == "coll") {
    while (!w.done()) {
      coll(w, j, static_cast<int>(i % static_cast<unsigned>(j.ranks)), i / 8);
      ++i;
    }
  } else if (kind == "pids") {
    while (!w.done()) {
      const unsigned long long k = i++;
      w.out(kConn,
            "[rank%llu]: job-%06llu:%llu:%llu [%llu] NCCL INFO Channel %02llu/0 : %llu[%llu] -> "
            "%llu[%llu] via P2P/CUMEM/read\n",
            k % 8, k / 4, 100000 + k, 200000 + k, k % 8, k % 32, k % 8, k % 8, (k + 1) % 8,
            (k + 1) % 8);
    }
  } else {
    std::fprintf(stderr, "unknown KIND %s\n", kind.c_str());
    return 2;
  }
  if (std::fclose(w.f) != 0) return 2;
  for (int k = 0; k < kKinds; ++k)
    if (w.lines[k]) std::fprintf(stderr, "%s %llu %llu\n", kKindNames[k], w.bytes[k], w.lines[k]);
  return 0;
}
