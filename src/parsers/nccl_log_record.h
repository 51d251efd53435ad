#pragma once
// Finds the NCCL records in one raw log line. NCCL writes "host:pid:tid [dev] NCCL INFO msg";
// launchers add their own prefix in front ("[rank3]: ", "0: ", "host: ", "[1,0]<stdout>:"), and
// concurrent writers can glue several records into one line.
#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <string_view>

namespace trainready {

enum class NcclLevel { kInfo, kWarn, kTrace, kAbort };

struct NcclRecord {
  std::string_view host;
  long pid = 0;
  int dev = -1;
  NcclLevel level = NcclLevel::kInfo;
  std::string_view message;  // after "NCCL INFO "
  std::string_view text;     // from the host to the end of the record, as NCCL printed it
  bool cut = false;          // another record starts before this one ended
  bool glued = false;        // written right after other text: the host may carry its tail
  // Another record on this line ends where this one's host begins (concurrent writers cut it
  // short): the host may begin with any tail of that record's text ("parent 0x55cd375g183").
  bool after_record = false;
};

// Offset of the next " NCCL " at or after `pos` (the space before it), or npos.
std::size_t find_nccl_tag(std::string_view line, std::size_t pos);

// A record glued to the end of other text ("...  0mew0:64904:...", "cudaDev 0ljm:...") takes that
// text's trailing digits into its host name. Returns how many leading characters of `host` are
// such a tail, judged by the hosts seen so far (0 when none is): the longest known host that ends
// it. `any_tail`: the record cut another record short (NcclRecord::after_record), so the tail may
// hold any characters ("0x55cd375g183", "lg183"), not only digits, '-' and '.'.
std::size_t glued_host_prefix(std::string_view host,
                              const std::set<std::string, std::less<>>& known_hosts,
                              bool any_tail = false);

// Fills at most `max` records; returns how many were found (0: not a NCCL line). Also reads the
// heads of NCCL 2.0-2.3 (no "NCCL" tag) and records whose "host:pid:tid" was cut off (no host).
std::size_t split_nccl_records(std::string_view line, NcclRecord* out, std::size_t max);
// Only records with the "NCCL" tag behind a whole "host:pid:tid [dev]" head.
std::size_t split_tagged_records(std::string_view line, NcclRecord* out, std::size_t max);

}  // namespace trainready
