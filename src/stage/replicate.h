#pragma once
// --replicate: every rank (one per node, under mpirun/srun) ends with the whole dataset at its own
// DST, while each byte is read from the source by one rank only and reaches the others over MPI.
//
// 1. Rank 0 lists the source once and broadcasts the manifest (sorted by path) and the chunk
//    size: one listing for the source to serve (a Blob listing is paid per request), and one
//    version of the truth — ranks listing a source that changes under them would split two
//    different listings.
// 2. The manifest is split by bytes with shard_by_bytes: the owner of a file is the only rank that
//    reads it from the source. Files are cut into units: one unit for a file up to the chunk size,
//    else one per chunk (the same chunks the journal records).
// 3. Each rank reads its own journal and says which units it lacks (files done and unchanged at
//    their final name, and chunks of a part file that hash as recorded, are kept); the root ORs
//    the lists, so an owner reads a unit once when any rank lacks it — the one that has it
//    discards what it receives, and a unit nobody lacks is not read at all.
// 4. Rounds: in each, every owner that still has units broadcasts its next batch (its next unit
//    and those already read behind it, up to round_bytes) from its read-ahead (several parallel
//    source reads), one MPI broadcast per owner in rank order. Open MPI's tuned broadcast
//    segments large messages and pipelines them down a chain or tree, MPICH's is scatter +
//    allgather (van de Geijn; Thakur, Rabenseifner & Gropp 2005), so a rank's link
//    carries about each byte once or twice whatever the rank count, and every owner's reads
//    overlap the others' broadcasts. mpiFileUtils' dbcast does the same for one file.
// 5. Each rank writes the units it lacks with the engine's guarantees: parts preallocated in the
//    parts directory beside DST (stage/safe_path.h), O_DIRECT where taken, XXH3 per chunk as
//    written, MD5 compared with the source's, atomic finalize, its own journal (the same format, so
//    --verify works).
//
// Every MPI step has a deadline (peer_timeout): a rank that dies or stops is an error naming it
// (the survivors ask each other who is still there), never a hang.
#include <chrono>
#include <cstdint>
#include <string>

#include "bench/mpi_layer.h"
#include "facts/stage_facts.h"
#include "stage/engine.h"
#include "stage/source.h"

namespace trainready::stage {

struct ReplicateOptions {
  EngineOptions engine;  // dst (placeholders expanded), journal, chunk_bytes, threads, max_bw
  std::chrono::milliseconds peer_timeout{300000};
  std::uint64_t round_bytes = 64ull << 20;  // per owner per round
};

struct ReplicateOutcome {
  StageFacts facts;
  // A rank failed to take part in time (facts.abort_reason names it): MPI cannot finish the
  // collectives that were started, so the job must end with abort rather than MPI_Finalize.
  bool world_broken = false;
  // No rank could start (the source cannot be listed at all, a DST that cannot be created, a
  // journal of another source): said on every rank alike, an input error (exit 2) once MPI ends,
  // as the same error is without --replicate.
  std::string input_error;
};

ReplicateOutcome run_stage_replicate(Source& source, MpiWorld& world, const ReplicateOptions& o);

// DST with `{rank}` replaced by the rank and `{host}` by the host name (one directory per rank on
// a shared file system, or for several ranks on one machine). Throws InputError for another
// `{...}` or a host name that cannot be a path component.
std::string expand_dst_placeholders(const std::string& dst, int rank, const std::string& host);

}  // namespace trainready::stage
