#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "support/paths.h"

using namespace trainready;

TEST(AtomicFile, WritesAndReplacesWithoutLeavingTemporaries) {
  std::string d = test::temp_dir("atomic");
  std::string p = d + "/report.json";
  write_file_atomically(p, "first");
  write_file_atomically(p, "second");
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "second");
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(d)) n += e.is_regular_file();
  EXPECT_EQ(n, 1);
}

TEST(AtomicFile, FailureLeavesTheTargetUntouched) {
  EXPECT_THROW(write_file_atomically("/definitely/not/here/report.json", "x"), std::runtime_error);
}

TEST(AtomicFile, DevicesAreWrittenInPlaceNotReplaced) {
  write_file_atomically("/dev/null", "report\n");
  struct stat st;
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

// Reliability probe 3, D21: the file was fchmod(0644) whatever the umask.
TEST(AtomicFile, CreatedWithTheUsersUmask) {
  std::string d = test::temp_dir("atomic-umask");
  const mode_t old = ::umask(077);
  write_file_atomically(d + "/private.json", "x");
  ::umask(027);
  write_file_atomically(d + "/group.json", "x");
  ::umask(old);
  struct stat st;
  ASSERT_EQ(::stat((d + "/private.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((d + "/group.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}
