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
  std::vector<std::string> sites;  // the "graph/topo.h:234" that told it, in log order
  bool known() const { return !tags.empty(); }
  // The range the logic uses, in words: "2.26.2 .. 2.26.6", "after 2.4.8, up to 2.22.3"
  // (untagged releases after 2.4.8 included), "2.30.7 or later", "before 2.5.7".
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

// The releases every placed WARN agrees on; unknown (no tags) when no WARN's place is listed, or
// when the listed ones agree on no release (a patched build, or ranks of several releases). A WARN
// whose place is not listed says nothing (an untagged build may have moved it).
NcclSiteReleases nccl_releases_from_sites(const std::vector<NcclPrintedWarn>& warns);

}  // namespace trainready
