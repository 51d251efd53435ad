#pragma once
// --shard: several nodes stage one dataset into a shared DST, each its part. The launcher says
// who is who (mpirun/Open MPI: OMPI_COMM_WORLD_RANK/SIZE; PMI: PMI_RANK/PMI_SIZE; Slurm srun:
// SLURM_PROCID/SLURM_NTASKS); every rank lists the whole source, sorts it by path and takes a
// contiguous run of about total/N bytes, so the split needs no messages between ranks and every
// rank computes the same one. Each rank keeps its own journal (journal.rank-R-of-N.jsonl).
#include <memory>
#include <string>
#include <vector>

#include "stage/source.h"

namespace trainready::stage {

struct RankInfo {
  int rank = 0;
  int size = 1;
  std::string from;  // the variables read, for messages; empty when not under a launcher
};

// Throws InputError when the variables are there but not numbers in range.
RankInfo launcher_rank();

// The entries of `rank` of `size` from `all` (sorted by path here): a file goes to the rank whose
// byte range [rank*T/size, (rank+1)*T/size) holds the file's first byte, T the total, so the
// parts differ by at most one file's size.
std::vector<SourceEntry> shard_by_bytes(std::vector<SourceEntry> all, int rank, int size);

// A source that lists a fixed set of entries (one rank's part) and reads through `inner`; the
// problems of the listing it came from (an unreadable directory, a link not followed, a name left
// out) are handed on as they were, so the outcome names them as without --shard.
class ListedSource : public Source {
 public:
  ListedSource(Source& inner, std::vector<SourceEntry> entries,
               std::vector<SourceError> problems = {})
      : inner_(inner), entries_(std::move(entries)), problems_(std::move(problems)) {}
  std::string describe() const override { return inner_.describe(); }
  SourceHints hints() const override { return inner_.hints(); }
  void enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                 const std::function<void(const SourceError&)>& on_problem) override {
    for (const SourceError& p : problems_) on_problem(p);
    for (const SourceEntry& e : entries_)
      if (!on_entry(e)) return;
  }
  std::unique_ptr<SourceReader> open(const SourceEntry& e) override { return inner_.open(e); }

 private:
  Source& inner_;
  std::vector<SourceEntry> entries_;
  std::vector<SourceError> problems_;
};

// --shard: lists `source` whole (every rank does, so the split needs no messages) and keeps the
// share of `rank` of `size`. The listing's problems belong to no rank's share: rank 0 reports
// them (once for the job, never silently dropped). Throws SourceError when the listing fails.
std::unique_ptr<ListedSource> shard_source(Source& source, int rank, int size);

}  // namespace trainready::stage
