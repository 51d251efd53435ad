#pragma once
// What `trainready stage` did, as the stage rules judge it: what was listed, copied, skipped,
// resumed and verified, what could not be staged and why (each with its path), what changed at
// the source, and what limited the copy's rate.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trainready {

struct StageProblem {
  std::string path;     // relative to SRC / DST; empty for the whole run (DST full)
  std::string kind;     // permission, vanished, changed, io, no-space, md5-mismatch, ...
  std::string message;  // what happened, naming the path
  // A file of the listing (counted in files_listed), or an item the listing left out: a link not
  // followed, a special file, an unreadable directory, a name that cannot be a path below DST,
  // a listed size out of range.
  bool listed = true;
};

struct StageFacts {
  std::string mode = "copy";  // copy, verify, hsm-restore
  std::string source;         // never with a SAS
  std::string destination;
  std::string journal;
  int rank = 0, ranks = 1;  // --shard / --replicate: this rank of the launcher's
  // --replicate: every rank writes the whole set; each byte is read from the source by one rank
  // (bytes_from_source) and reaches the others over MPI (their bytes_from_peers).
  bool replicate = false;
  std::string host;                           // MPI_Get_processor_name of this rank
  std::uint64_t bytes_from_source = 0;        // read from the source by this rank, this run
  std::uint64_t bytes_from_peers = 0;         // received from other ranks and written here
  std::uint64_t bytes_received_unneeded = 0;  // received, but this rank had them already
  std::uint64_t rounds = 0;                   // fan-out rounds (one broadcast per reader each)

  std::uint64_t files_listed = 0, bytes_listed = 0;
  // Staged in this run: the files finalized and their bytes read (or, --replicate, written) in
  // this run. bytes_read is every byte read from the source, for files not staged too.
  std::uint64_t files_copied = 0, bytes_copied = 0, bytes_read = 0;
  std::uint64_t files_skipped = 0, bytes_skipped = 0;    // staged and unchanged already
  std::uint64_t chunks_resumed = 0, bytes_resumed = 0;   // written by an earlier run, re-hashed
  std::uint64_t files_md5_checked = 0;                   // compared with the source's MD5
  std::uint64_t files_verified = 0, bytes_verified = 0;  // --verify: re-read and hashed
  std::string verify_read_mode;                          // O_DIRECT / evicted / memory
  std::vector<std::string> not_regular;  // links not followed and special files (also in failed)
  std::vector<StageProblem> changed;     // source changed since the manifest or during the copy
  std::vector<StageProblem> failed;      // not staged (or, --verify, not as written)
  bool aborted = false;                  // the run stopped (DST full, journal not writable)
  std::string abort_reason;

  double seconds = 0;
  double cpu_seconds = 0;
  std::string write_mode;  // O_DIRECT (aligned part) or buffered, and why
  // Where worker time went (seconds): source reads, destination writes, metadata, hashing,
  // --max-bw waits, waiting for the listing. The largest is what limited the copy.
  std::map<std::string, double> time_by_stage;
  std::string limit;           // the largest, in words
  double nic_bytes_per_s = 0;  // the VM size's front-end NIC ceiling (--sku), 0 when unknown

  // --hsm-restore
  std::uint64_t hsm_released = 0, hsm_restored = 0, hsm_batches = 0;
  std::vector<std::string> hsm_still_released;  // after the time allowed
};

}  // namespace trainready
