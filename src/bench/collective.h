#pragma once
// The collectives `bench` measures, with nccl-tests' arithmetic: how a test size becomes the
// element counts each rank sends and receives, the count column, and the bytes algbw divides.
// busbw factors are facts/nccl_tests_facts.h's busbw_factor (nccl-tests doc/PERFORMANCE.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

enum class Collective { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kBroadcast, kSendRecv };

struct CollectiveSpec {
  Collective id;
  const char* command;  // allreduce: `trainready bench allreduce`
  const char* name;     // all_reduce: nccl-tests' name, `all_reduce_perf`
  bool reduces;         // prints a redop
  bool rooted;          // prints a root
};

const std::vector<CollectiveSpec>& collective_specs();
const CollectiveSpec& spec_of(Collective c);

enum class DataType { kFloat32, kFloat64, kInt32 };
const char* to_string(DataType t);  // nccl-tests' spelling: float, double, int32
std::size_t type_size(DataType t);

struct CollectiveCounts {
  std::size_t send = 0;     // elements in each rank's send buffer
  std::size_t recv = 0;     // elements in each rank's receive buffer
  std::size_t param = 0;    // the count column: per rank (gathers, scatters), per peer (alltoall)
  std::uint64_t bytes = 0;  // the size column, and what algbw divides by time
};

// nccl-tests' sizes: a test of `size_bytes` moves size/type_size elements in all; gathers and
// scatters split them evenly over the ranks (rounding down).
CollectiveCounts collective_counts(Collective c, std::uint64_t size_bytes, int nranks, DataType t);

}  // namespace trainready
