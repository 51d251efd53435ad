// The journal's file and done records, formatted without a JSON object where nothing needs
// escaping (stage/journal.cpp), are byte for byte what nlohmann's dump of the record object
// writes; names, ETags and digests that need escaping (quotes, a backslash, control characters,
// UTF-8, bytes that are not UTF-8) go through nlohmann, and every record reads back.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "core/utf8.h"
#include "stage/journal.h"
#include "support/paths.h"

namespace trainready::stage {
namespace {

using nlohmann::json;

std::vector<std::string> lines_of(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The records as the journal wrote them before the formatting by hand (json objects' dump).
std::string file_dump(std::uint64_t id, const SourceEntry& e) {
  json j{{"t", "file"},
         {"id", id},
         {"path", e.path},
         {"size", e.size},
         {"mtime_ns", e.mtime_ns},
         {"etag", e.etag},
         {"md5", e.content_md5},
         {"mode", e.mode}};
  if (valid_utf8(e.path) != e.path) j["path_b64"] = base64_encode(e.path);
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

SourceEntry entry(std::string path, std::string etag, std::string md5, std::int64_t mtime_ns,
                  std::uint64_t size, std::uint32_t mode) {
  SourceEntry e;
  e.path = std::move(path);
  e.etag = std::move(etag);
  e.content_md5 = std::move(md5);
  e.mtime_ns = mtime_ns;
  e.size = size;
  e.mode = mode;
  return e;
}

TEST(StageJournalFormat, RecordsAreWhatTheJsonObjectsDumpByteForByte) {
  const std::string p = test::temp_dir("stage-journal-format") + "/j.jsonl";
  const std::vector<SourceEntry> entries = {
      entry("d000/s000001", "", "", 1796231131905586931, 13707, 0644),
      entry("a b/c~d=e+f&g", "\"0x8DC1234ABCD\"", "9e107d9d372bb6826bd81d3542a419d6", 0, 0, 0),
      entry("back\\slash/q\"uote", "W/\"x\"", "", -1500000001, 209715200000000ull, 07777),
      entry("tab\there/nl\nx", "", "", 5, 1, 0600),
      entry("caf\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac", "", "", 5, 2, 0644),  // UTF-8
      entry("latin1-\xe9t\xe9", "", "", 5, 3, 0644),                      // not UTF-8
      entry("del\x7f", "", "", 5, 4, 0644),
  };
  const std::vector<std::vector<std::string>> hashes = {
      {"9e44660107c389af"}, {}, {"0000000000000000", "ffffffffffffffff", "d0025d4cd127c4a5"}};
  const std::vector<std::string> md5s = {"", "9e107d9d372bb6826bd81d3542a419d6", "a\"b"};
  {
    JournalWriter w(p, 0, -1);
    w.header("/src", 1 << 20);
    for (std::size_t i = 0; i < entries.size(); ++i) w.file(i, entries[i]);
    for (std::size_t i = 0; i < hashes.size(); ++i) w.done(i, hashes[i], md5s[i]);
    w.flush();
  }
  const std::vector<std::string> got = lines_of(p);
  ASSERT_EQ(got.size(), 1 + entries.size() + hashes.size());
  for (std::size_t i = 0; i < entries.size(); ++i)
    EXPECT_EQ(got[1 + i], file_dump(i, entries[i])) << "file record " << i;
  for (std::size_t i = 0; i < hashes.size(); ++i)
    EXPECT_EQ(got[1 + entries.size() + i],
              (json{{"t", "done"}, {"id", i}, {"xxh3", hashes[i]}, {"md5", md5s[i]}}.dump()))
        << "done record " << i;
  // And the reader takes them back: every path, its size, mtime, ETag and mode.
  const JournalState j = read_journal(p);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto* f = j.find(entries[i].path);
    ASSERT_NE(f, nullptr) << entries[i].path;
    EXPECT_EQ(f->entry.size, entries[i].size);
    EXPECT_EQ(f->entry.mtime_ns, entries[i].mtime_ns);
    EXPECT_EQ(f->entry.etag, entries[i].etag);
    EXPECT_EQ(f->entry.mode, entries[i].mode);
  }
  EXPECT_TRUE(j.find("d000/s000001")->done);
}

}  // namespace
}  // namespace trainready::stage
