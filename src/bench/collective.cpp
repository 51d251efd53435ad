#include "bench/collective.h"

namespace trainready {

const std::vector<CollectiveSpec>& collective_specs() {
  static const std::vector<CollectiveSpec> specs = {
      {Collective::kAllReduce, "allreduce", "all_reduce", true, false},
      {Collective::kAllGather, "allgather", "all_gather", false, false},
      {Collective::kReduceScatter, "reducescatter", "reduce_scatter", true, false},
      {Collective::kAllToAll, "alltoall", "alltoall", false, false},
      {Collective::kBroadcast, "broadcast", "broadcast", false, true},
      {Collective::kSendRecv, "sendrecv", "sendrecv", false, false},
  };
  return specs;
}

const CollectiveSpec& spec_of(Collective c) {
  for (const CollectiveSpec& s : collective_specs()) {
    if (s.id == c) return s;
  }
  return collective_specs().front();
}

const char* to_string(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return "float";
    case DataType::kFloat64:
      return "double";
    case DataType::kInt32:
      return "int32";
  }
  return "?";
}

std::size_t type_size(DataType t) { return t == DataType::kFloat64 ? 8 : 4; }

CollectiveCounts collective_counts(Collective c, std::uint64_t size_bytes, int nranks, DataType t) {
  const std::size_t ts = type_size(t);
  const std::size_t n = nranks > 0 ? static_cast<std::size_t>(nranks) : 1;
  const std::size_t count = size_bytes / ts;
  CollectiveCounts k;
  switch (c) {
    case Collective::kAllReduce:
    case Collective::kBroadcast:
    case Collective::kSendRecv:
      k.send = k.recv = k.param = count;
      k.bytes = count * ts;
      break;
    case Collective::kAllGather: {
      const std::size_t base = count / n;
      k.send = base;
      k.recv = base * n;
      k.param = base;
      k.bytes = base * n * ts;
      break;
    }
    case Collective::kReduceScatter: {
      const std::size_t base = count / n;
      k.send = base * n;
      k.recv = base;
      k.param = base;
      k.bytes = base * n * ts;
      break;
    }
    case Collective::kAllToAll: {
      const std::size_t base = count / n;
      k.send = k.recv = base * n;
      k.param = base;
      k.bytes = base * n * ts;
      break;
    }
  }
  return k;
}

}  // namespace trainready
