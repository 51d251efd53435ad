// Writes a realistic multi-rank NCCL_DEBUG=INFO log of at least N bytes: `hosts` VMs x 8 GPUs,
// launcher-prefixed, ranks interleaved. Init (bootstrap, HCAs, GPUDirect RDMA, Init START,
// channels, Init COMPLETE), then collective traffic (opCount and algorithm lines) mixed with the
// training script's own output, until the size is reached.
//   make_nccl_log OUT BYTES [HOSTS]
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_nccl_log OUT BYTES [HOSTS]\n");
    return 2;
  }
  const unsigned long long target = std::strtoull(argv[2], nullptr, 10);
  const int hosts = argc > 3 ? std::atoi(argv[3]) : 512;
  const int gpus = 8;
  const int ranks = hosts * gpus;
  std::FILE* f = std::fopen(argv[1], "w");
  if (!f) return 2;
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  unsigned long long written = 0;
  auto out = [&](const char* fmt, auto... a) {
    int n = std::fprintf(f, fmt, a...);
    if (n > 0) written += static_cast<unsigned long long>(n);
  };
  auto host = [](int r) { return r / 8; };
  auto pid = [](int r) { return 10000 + r; };
  // Init, one phase at a time across all ranks, as a launcher interleaves them.
  for (int r = 0; r < ranks; ++r)
    out("[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO Bootstrap : Using eth0:10.%d.%d.4<0>\n", r,
        host(r), pid(r), pid(r), r % gpus, host(r) / 250, host(r) % 250);
  out("NCCL version 2.21.5+cuda12.4\n");
  for (int r = 0; r < ranks; ++r) {
    out("[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO NET/IB : Using [0]mlx5_ib0:1/IB [1]mlx5_ib1:1/IB "
        "[2]mlx5_ib2:1/IB [3]mlx5_ib3:1/IB [4]mlx5_ib4:1/IB [5]mlx5_ib5:1/IB [6]mlx5_ib6:1/IB "
        "[7]mlx5_ib7:1/IB [RO]; OOB eth0:10.0.0.4<0>\n",
        r, host(r), pid(r), pid(r) + 40, r % gpus);
    out("[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO Using network IB\n", r, host(r), pid(r),
        pid(r) + 40, r % gpus);
    out("[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA %d "
        "'mlx5_ib%d'\n",
        r, host(r), pid(r), pid(r) + 40, r % gpus, r % gpus, r % gpus);
    out("[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO ncclCommInitRank comm 0x7f%06x rank %d nranks %d "
        "cudaDev %d nvmlDev %d busId %d00000 commId 0x4e5f60718293a4b5 - Init START\n",
        r, host(r), pid(r), pid(r) + 40, r % gpus, r, r, ranks, r % gpus, r % gpus, r % gpus);
  }
  for (int r = 0; r < ranks; ++r) {
    out("[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO comm 0x7f%06x rank %d nRanks %d nNodes %d "
        "localRanks 8 localRank %d MNNVL 0\n",
        r, host(r), pid(r), pid(r) + 40, r % gpus, r, r, ranks, hosts, r % gpus);
    for (int c = 0; c < 16; ++c) {
      int prev = (r + ranks - 1) % ranks;
      if (r % gpus == 0)
        out("[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d00000] -> %d[%d00000] "
            "[receive] via NET/IB/%d/GDRDMA\n",
            r, host(r), pid(r), pid(r) + 40, r % gpus, c, prev, prev % gpus, r, r % gpus, c % 8);
      else
        out("[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d00000] -> %d[%d00000] "
            "via P2P/CUMEM/read\n",
            r, host(r), pid(r), pid(r) + 40, r % gpus, c, prev, prev % gpus, r, r % gpus);
    }
  }
  for (int r = 0; r < ranks; ++r)
    out("[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO ncclCommInitRank comm 0x7f%06x rank %d nranks %d "
        "cudaDev %d nvmlDev %d busId %d00000 commId 0x4e5f60718293a4b5 - Init COMPLETE\n",
        r, host(r), pid(r), pid(r) + 40, r % gpus, r, r, ranks, r % gpus, r % gpus, r % gpus);
  // Training: collectives on every rank, script output now and then.
  unsigned long long op = 0;
  while (written < target) {
    for (int r = 0; r < ranks && written < target; ++r) {
      out("[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO AllReduce: opCount %llx sendbuff "
          "0x7f2a00000000 recvbuff 0x7f2a00000000 count 262144000 datatype 9 op 0 root 0 comm "
          "0x7f%06x [nranks=%d] stream 0x5601c0\n",
          r, host(r), pid(r), pid(r), r % gpus, op, r, ranks);
      out("[rank%d]: ndv5-%04d:%d:%d [%d] NCCL INFO AllReduce: 524288000 Bytes -> Algo RING proto "
          "SIMPLE channel{Lo..Hi}={0..31}\n",
          r, host(r), pid(r), pid(r), r % gpus);
      if (r % 64 == 0)
        out("[rank%d]: step %llu loss %.3f tokens/s %d\n", r, op,
            2.0 + 1.0 / static_cast<double>(op + 1), 180000 + r);
    }
    ++op;
  }
  std::fclose(f);
  return 0;
}
