// Checks the single copy (engine.cpp) and --replicate (replicate.cpp) share: which names may be
// written below DST, why a run stopped, and whether a staged file is still the source's version.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string>

#include "bench/direct_io.h"
#include "bench/page_cache.h"
#include "core/temp_files.h"
#include "stage/engine.h"
#include "stage/safe_path.h"

namespace trainready::stage {

bool safe_relative(const std::string& p) {
  if (p.empty() || p.front() == '/' || p.find('\0') != std::string::npos) return false;
  std::size_t start = 0;
  while (start <= p.size()) {
    const std::size_t end = std::min(p.find('/', start), p.size());
    const std::string part = p.substr(start, end - start);
    if (part.empty() || part == "." || part == ".." || (start == 0 && part == kStageDir))
      return false;
    start = end + 1;
  }
  return true;
}

std::string unsafe_name_reason(const std::string& p) {
  if (p == kStageDir || p.starts_with(std::string(kStageDir) + "/"))
    return "'" + p + "': the journal of a stage into this directory by an older trainready " +
           "(which kept it inside DST): stage state, not data; not staged. Run any stage into " +
           "this directory once (it moves the journal beside it) or delete " + kStageDir;
  return "'" + p +
         "': not a relative path inside the destination (empty, absolute, '.' or '..' "
         "component); not staged";
}

std::string dest_abort_reason(const DestError& e) {
  return e.message + (e.err == ENOSPC || e.err == EDQUOT
                          ? " (the destination is full: no file at its final name is partial; "
                            "free space and run the same command again to resume)"
                          : "");
}

std::string changed_since_manifest(const std::string& path, const std::string& change) {
  return path + ": changed since the manifest (" + change +
         "); the earlier copy is discarded and the file copied again whole";
}

bool finished_copy_intact(const DestTree& dst, const std::string& rel, const SourceEntry& e) {
  struct stat st {};
  return dst.stat_beneath(rel, st) && S_ISREG(st.st_mode) &&
         static_cast<std::uint64_t>(st.st_size) == e.size &&
         static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec ==
             e.mtime_ns;
}

std::string version_change(const SourceEntry& was, const SourceEntry& now) {
  std::string d;
  if (was.size != now.size)
    d += "size " + std::to_string(was.size) + " -> " + std::to_string(now.size);
  if (was.mtime_ns != now.mtime_ns)
    d += std::string(d.empty() ? "" : ", ") + "mtime " + std::to_string(was.mtime_ns) + " -> " +
         std::to_string(now.mtime_ns) + " ns";
  if (was.etag != now.etag)
    d += std::string(d.empty() ? "" : ", ") + "ETag " + was.etag + " -> " + now.etag;
  return d;
}

DirectWrite probe_direct_write(const std::string& dst, const std::string& parts_dir,
                               std::string& write_mode) {
  DirectWrite direct;
  // O_DIRECT writes where the file system takes them, and not on a memory file system (tmpfs:
  // the copy is memory either way, and O_DIRECT there only costs).
  {
    // Named like every temporary of this tool and removed on a fatal signal (core/temp_files).
    const std::string probe = parts_dir + "/direct-io-probe.tmp-" + temp_tag();
    DirectIoSupport d;
    {
      std::optional<TempGuard> guard;
      {
        SignalsHeld held;
        const int fd =
            ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) ::close(fd);
        guard.emplace(probe);
      }
      d = direct_io_support(probe);
      ::unlink(probe.c_str());
    }
    const bool memory = memory_backed(dst);
    direct.enabled = d.supported && !memory;
    direct.alignment = std::max(d.memory_alignment, d.offset_alignment);
    write_mode = direct.enabled ? "O_DIRECT for aligned ranges of files over 1 MiB (" + d.how + ")"
                                : std::string("buffered: ") +
                                      (memory ? "the destination is a memory file system" : d.how);
  }

  return direct;
}

}  // namespace trainready::stage
