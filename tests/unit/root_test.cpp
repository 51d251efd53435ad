#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/root.h"
#include "support/paths.h"

using namespace trainready;
namespace fs = std::filesystem;

namespace {
void put(const std::string& path, const std::string& data) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << data;
}
}  // namespace

TEST(FsRoot, ReadsListsAndReadlinksInsideTheSnapshot) {
  std::string d = test::temp_dir("root-basic");
  put(d + "/sys/class/infiniband/mlx5_ib0/ports/1/state", "4: ACTIVE\n");
  put(d + "/sys/class/infiniband/mlx5_an0/ports/1/state", "4: ACTIVE\n");
  fs::create_symlink("../../../0101:00:00.0", d + "/sys/class/infiniband/mlx5_ib0/device");
  FsRoot root(d);
  EXPECT_FALSE(root.is_live());
  FileRead r = root.read_file("/sys/class/infiniband/mlx5_ib0/ports/1/state");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.data, "4: ACTIVE\n");
  DirList l = root.list_dir("/sys/class/infiniband");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l.entries, (std::vector<std::string>{"mlx5_an0", "mlx5_ib0"}));
  LinkRead k = root.read_link("/sys/class/infiniband/mlx5_ib0/device");
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k.target, "../../../0101:00:00.0");
  EXPECT_EQ(root.read_file("/nope").status, ReadStatus::kMissing);
  EXPECT_EQ(root.display("/sys/x"), d + "/sys/x");
}

TEST(FsRoot, AbsoluteSymlinksCannotEscapeTheSnapshot) {
  std::string d = test::temp_dir("root-escape");
  std::string outside = test::temp_dir("root-outside") + "/secret";
  put(outside, "secret\n");
  fs::create_directories(d + "/etc");
  fs::create_symlink(outside, d + "/etc/hostname");
  fs::create_symlink("../../../../../../../../" + outside, d + "/etc/relative");
  FsRoot root(d);
  EXPECT_NE(root.read_file("/etc/hostname").data, "secret\n");
  EXPECT_NE(root.read_file("/etc/relative").data, "secret\n");
}

TEST(FsRoot, HugeFileFifoAndDirectoryAreUnreadableQuickly) {
  std::string d = test::temp_dir("root-hostile");
  fs::create_directories(d + "/sys");
  { std::ofstream f(d + "/sys/big"); }
  ASSERT_EQ(::truncate((d + "/sys/big").c_str(), 1LL << 30), 0);  // 1 GiB, sparse
  ASSERT_EQ(::mkfifo((d + "/sys/fifo").c_str(), 0644), 0);
  fs::create_directories(d + "/sys/dir");
  FsRoot root(d);
  auto t0 = std::chrono::steady_clock::now();
  FileRead big = root.read_file("/sys/big");
  FileRead fifo = root.read_file("/sys/fifo");
  FileRead dir = root.read_file("/sys/dir");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(big.status, ReadStatus::kUnreadable);
  EXPECT_NE(big.error.find("larger than"), std::string::npos);
  EXPECT_EQ(fifo.status, ReadStatus::kUnreadable);
  EXPECT_EQ(dir.status, ReadStatus::kUnreadable);
}

TEST(FsRoot, MissingSnapshotDirectoryReadsAsMissing) {
  FsRoot root("/definitely/not/here");
  EXPECT_EQ(root.read_file("/x").status, ReadStatus::kMissing);
  EXPECT_FALSE(root.list_dir("/").ok());
}
