#pragma once
// The NCCL releases a log can come from when it prints no "NCCL version" line, told by where its
// WARNs were printed (issue 30: the NCCL version is context a reading needs). NCCL's WARN lines
// carry the file and line that printed them ("graph/topo.h:234 NCCL WARN ..."), and those move
// from release to release: data/nccl-kb/site-releases.txt (tools/nccl_site_releases.py, from the
// message sites of NCCL v2.4..v2.30 in tests/data/nccl-sites) lists, for every place a WARN
// printed from, the release tags it printed there in. A log whose WARNs sit where only some
// releases print them comes from those releases. From 2.18.1 on the site lists hold every
// release NCCL tagged; before it, one per minor release, so there the log may come from any
// release between the nearest listed tags that do not print there.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

using NcclVersion = std::array<int, 3>;  // major, minor, patch

struct NcclSiteReleases {
  // The releases the sites agree on, oldest first ("2.26.2", ...): the tags that print every
  // placed WARN where the log shows it.
  std::vector<std::string> tags;
  // The releases the log can come from: `lo` and later, before `hi` (none: no bound), the
  // untagged ones around `tags` included where the site lists are sparse (before 2.18.1) or end.
  NcclVersion lo{0, 0, 0};
  std::optional<NcclVersion> hi;
  // The places that told it ("graph/topo.h:234"): the first trail's, then the WARNs', each in
  // log order.
  std::vector<std::string> sites;
  // The same tags as a mask over the site lists' tags (bit 0 the oldest; nccl_trail_call).
  std::uint64_t mask = 0;
  // Where the tags are releases of the dense lists (2.18.1 on) with listed releases between
  // them that the places rule out: each run of consecutive ones ("2.20.3 .. 2.20.5", "2.25.1"),
  // which describe() names instead of the range `lo`..`hi` spans (the logic keeps the range).
  std::vector<std::string> runs;
  bool known() const { return !tags.empty(); }
  // The range the logic uses, in words: "2.26.2 .. 2.26.6", "after 2.4.8, up to 2.22.3"
  // (untagged releases after 2.4.8 included), "2.30.7 or later", "before 2.5.7"; the runs when
  // the places rule out listed releases between them ("2.20.3 .. 2.20.5 or 2.25.1").
  std::string describe() const;
  // Whether every release in the range / some release in it is in a knowledge-base version spec
  // (">=2.19,<2.21", as nccl_version_in reads it). "Some" is generous: false only when the spec
  // and the range cannot meet.
  bool all_in(std::string_view spec) const;
  bool some_in(std::string_view spec) const;
};

// One WARN the log printed: the file:line before "NCCL WARN" and the message after it.
struct NcclPrintedWarn {
  std::string_view place;    // "graph/topo.h:234"
  std::string_view message;  // "Could not find NET with id 0"
};

// The releases every placed WARN and every place of the error trail agree on; unknown (no tags)
// when no place is listed, or when the listed ones agree on no release (a patched build, or ranks
// of several releases). A place that is not listed says nothing (an untagged build may have moved
// it). `trail`: the places of "file:line -> code" lines ("transport/net_ib.cc:282"), read in
// data/nccl-kb/trail-sites.txt (tools/nccl_trail_releases.py: every place NCCL's error trail
// printed from, v2.3 .. v2.30).
NcclSiteReleases nccl_releases_from_sites(const std::vector<NcclPrintedWarn>& warns,
                                          const std::vector<std::string_view>& trail = {});

// What NCCL calls at a place its error trail printed from. NCCLCHECK(call) and its kin print
// "file:line -> code" at their own line when `call` fails and return the code, so the first line
// of the first trail is the check around the call that failed: a call that printed no WARN of
// its own is named only there (2.21.5's transport/net_ib.cc:282 is
// NCCLCHECK(ncclIbRoceGetVersionNum(...)) in ncclUpdateGidIndex).
struct NcclTrailCall {
  std::string place;     // "transport/net_ib.cc:282"
  std::string callee;    // "ncclIbRoceGetVersionNum"; "" when the check reads a result computed
                         // before (NCCLCHECK(ret)) or the trail line is written out after a
                         // fail: label, which reports the function's own result
  std::string function;  // the function the place is in, "" when not known
  std::vector<std::string> tags;  // the listed releases it was read at ("2.21.5"), oldest first
  // Set when the place is another thread's deeper start of the first trail, which the log shows
  // cut: that first trail's first place, which this thread's trail passes ("bootstrap.cc:270").
  std::string passes;
  bool known() const { return !tags.empty(); }
};

// The call at `place` in the releases `mask` holds (bits as NcclSiteReleases::mask; ~0: any
// release): known only when every listed release in the mask that has a trail at that place
// checks the same call in the same function. Unknown for a place no such release lists.
NcclTrailCall nccl_trail_call(std::string_view place, std::uint64_t mask);

// The mask of the listed release a printed version ("2.21.5", "2.18.5+cuda12.2") counts as: its
// own tag; before 2.18.1, where the site lists hold one tag a minor release, the oldest listed one
// at or after it in the same minor (it stands for the untagged releases before it); 0 otherwise
// (a build between tags, a release past the newest).
std::uint64_t nccl_release_mask(std::string_view version);

}  // namespace trainready
