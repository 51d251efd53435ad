#include "stage/shard.h"

#include <algorithm>
#include <cstdlib>

#include "core/input_error.h"

namespace trainready::stage {
namespace {

bool read_int(const char* name, int& out) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return false;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0 || n > 1000000)
    throw InputError(name, 0, std::string("'") + v + "': expected a rank or a count");
  out = static_cast<int>(n);
  return true;
}

}  // namespace

RankInfo launcher_rank() {
  static const char* const kPairs[][2] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                          {"PMI_RANK", "PMI_SIZE"},
                                          {"PMIX_RANK", "PMIX_SIZE"},
                                          {"SLURM_PROCID", "SLURM_NTASKS"}};
  RankInfo r;
  for (const auto& p : kPairs) {
    int rank = 0, size = 0;
    if (read_int(p[0], rank) && read_int(p[1], size)) {
      if (size < 1 || rank >= size)
        throw InputError(p[0], 0,
                         "rank " + std::to_string(rank) + " of " + std::to_string(size) +
                             ": expected a rank below the count");
      r.rank = rank;
      r.size = size;
      r.from = std::string(p[0]) + "/" + p[1];
      return r;
    }
  }
  return r;
}

std::vector<SourceEntry> shard_by_bytes(std::vector<SourceEntry> all, int rank, int size) {
  std::sort(all.begin(), all.end(),
            [](const SourceEntry& a, const SourceEntry& b) { return a.path < b.path; });
  std::uint64_t total = 0;
  for (const SourceEntry& e : all) total += e.size;
  std::vector<SourceEntry> mine;
  std::uint64_t at = 0;
  std::size_t i = 0;
  for (SourceEntry& e : all) {
    const std::uint64_t size_of = e.size;
    // Empty files carry no bytes: spread them round-robin by position instead. Every rank
    // computes the same doubles in the same order, so the split agrees without messages.
    int owner;
    if (total == 0 || size_of == 0)
      owner = static_cast<int>(i % static_cast<std::size_t>(size));
    else
      owner = std::min(
          size - 1, static_cast<int>(static_cast<double>(at) / static_cast<double>(total) * size));
    if (owner == rank) mine.push_back(std::move(e));
    at += size_of;
    ++i;
  }
  return mine;
}

std::unique_ptr<ListedSource> shard_source(Source& source, int rank, int size) {
  std::vector<SourceEntry> all;
  std::vector<SourceError> problems;
  source.enumerate(
      [&](const SourceEntry& e) {
        all.push_back(e);
        return true;
      },
      [&](const SourceError& p) {
        // Bounded as the outcome's lists are: a source of millions of unreadable entries.
        if (rank == 0 && problems.size() < 10000) problems.push_back(p);
      });
  return std::make_unique<ListedSource>(source, shard_by_bytes(std::move(all), rank, size),
                                        std::move(problems));
}

}  // namespace trainready::stage
