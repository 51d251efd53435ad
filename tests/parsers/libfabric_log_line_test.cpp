// libfabric's own log line (parsers/libfabric_log_line.h) in the shapes its src/log.c printed from
// v1.5 to v2.6, and lines that only look like it; then what the NCCL log reader keeps of them.
#include "parsers/libfabric_log_line.h"

#include <gtest/gtest.h>

#include "parsers/nccl_log.h"
#include "support/paths.h"

namespace trainready {
namespace {

TEST(LibfabricLogLine, EveryReleasesHead) {
  // v1.15+ (log_prefix empty), v1.14 (pid, time), v1.8 (pid), v1.5 (none): src/log.c's format.
  for (const char* t :
       {"libfabric:462:1673041636::efa:core:efa_user_info_should_support_hmem():257<warn> x y",
        "libfabric:462:1673041636:efa:core:rxr_info_to_rxr():506<warn> x y",
        "libfabric:462:efa:core:rxr_info_to_rxr():506<warn> x y",
        "libfabric:efa:core:rxr_info_to_rxr():506<warn> x y"}) {
    const auto l = read_libfabric_log_line(t);
    ASSERT_TRUE(l.has_value()) << t;
    EXPECT_EQ(l->provider, "efa") << t;
    EXPECT_EQ(l->subsystem, "core") << t;
    EXPECT_EQ(l->level, "warn") << t;
    EXPECT_EQ(l->message, "x y") << t;
  }
  const auto p = read_libfabric_log_line(
      "libfabric:7:1700000000:ofi_rxd:efa;ofi_rxd:ep_ctrl:rxd_ep_ctrl():12<info> z");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->provider, "efa;ofi_rxd");
  EXPECT_EQ(p->subsystem, "ep_ctrl");
  EXPECT_EQ(p->site, "rxd_ep_ctrl():12");
  EXPECT_EQ(p->level, "info");
}

TEST(LibfabricLogLine, NotItsLines) {
  for (const char* t :
       {"libfabric", "libfabric:", "libfabric: 1.18 installed",
        "libfabric:462:efa:core:f():<warn> no line number",
        "libfabric:462:efa:core:f():5<loud> not a level", "libfabric:core:f():5<warn> no provider",
        "libfabric:1:a b:core:f():5<warn> a blank in the head", "libfabric::f():5<warn> empty",
        "libfabric:x:y:f():5<warn", "efa:core:f():5<warn> without the package"})
    EXPECT_FALSE(read_libfabric_log_line(t).has_value()) << t;
}

// aws/aws-ofi-nccl#161: libfabric's warning between the plugin's and NCCL's lines.
TEST(LibfabricLogLine, TheReaderKeepsOneWarningPerSite) {
  NcclRunFacts f = analyze_nccl_logs(
      {std::string(TR_TEST_DATA) + "/nccl-shapes/awsofi161-libfabric-hmem-warn.log"});
  ASSERT_EQ(f.library_warnings.size(), 1u);
  EXPECT_EQ(f.library_warnings[0].provider, "efa");
  EXPECT_EQ(f.library_warnings[0].site, "rxr_info_to_rxr():506");
  EXPECT_EQ(f.library_warnings[0].message,
            "FI_HMEM capability requires RDMA, which this device does not support.");
  EXPECT_EQ(f.library_warnings[0].line.where.line, 5);
  EXPECT_EQ(f.library_warn_lines.at("libfabric"), 1u);

  std::string log;
  for (int i = 0; i < 40; ++i)
    log += "libfabric:7:1700000000::efa:cq:f" + std::to_string(i % 20) + "():1<warn> m\n" +
           "libfabric:7:1700000000::efa:cq:f():1<info> not a warning\n";
  const NcclRunFacts g = analyze_nccl_log_text(log, "t.log");
  EXPECT_EQ(g.library_warnings.size(), 16u);  // the first 16 places
  EXPECT_EQ(g.library_warn_lines.at("libfabric"), 40u);
  EXPECT_TRUE(has_nccl_output(g));
  EXPECT_FALSE(has_nccl_output(
      analyze_nccl_log_text("libfabric:7:1700000000::efa:cq:f():1<info> only info\n", "t.log")));
}

// libfabric 1.18.0 - 1.18.3 print two warnings without a newline (efa_user_info.c:329, :337
// @ v1.18.0), so the next line of libfabric's is glued on: both are read.
TEST(LibfabricLogLine, AWarningWithoutItsNewlineIsTwoWarnings) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "libfabric:7:1700000000::efa:core:efa_user_info_should_support_hmem():328<warn> FI_HMEM "
      "cannot be supported because no compatible libraries were found."
      "libfabric:7:1700000000::efa:core:efa_user_info_should_support_hmem():346<warn> EFA "
      "cannot support FI_HMEM because the EFA device does not have RDMA support.\n",
      "t.log");
  ASSERT_EQ(f.library_warnings.size(), 2u);
  EXPECT_EQ(f.library_warnings[0].message,
            "FI_HMEM cannot be supported because no compatible libraries were found.");
  EXPECT_EQ(f.library_warnings[1].site, "efa_user_info_should_support_hmem():346");
  EXPECT_EQ(f.library_warnings[1].message,
            "EFA cannot support FI_HMEM because the EFA device does not have RDMA support.");
  EXPECT_EQ(f.library_warnings[1].line.where.line, 1);
  EXPECT_EQ(f.library_warn_lines.at("libfabric"), 2u);
}

// The same two texts with the plugin's next NCCL line glued on: the NCCL line is read as its
// own (one host, not "true.algo-1" beside "algo-1"), by the scanner and the line reader alike.
TEST(LibfabricLogLine, ANcclLineGluedAfterAnUnterminatedWarningIsItsOwnLine) {
  const std::string text =
      "algo-1:462:462 [0] NCCL INFO NET/OFI Using aws-ofi-nccl 1.7.1aws\n"
      "libfabric:462:1673041636::efa:core:efa_user_info_should_support_hmem():337<warn> FI_HMEM "
      "capability requires peer to peer support, which is disabled because FI_HMEM_P2P_DISABLED "
      "was set to 1/on/true.algo-1:462:462 [0] NCCL INFO NET/OFI Selected Provider is efa "
      "(found 4 nics)\n"
      "algo-1:462:462 [0] NCCL INFO Using network AWS Libfabric\n";
  for (const bool line_reader : {false, true}) {
    NcclReadOptions opt;
    opt.line_reader = line_reader;
    const NcclRunFacts f = analyze_nccl_log_text(text, "t.log", opt);
    EXPECT_EQ(f.lines, 3u);
    ASSERT_EQ(f.library_warnings.size(), 1u) << line_reader;
    EXPECT_EQ(f.library_warnings[0].message,
              "FI_HMEM capability requires peer to peer support, which is disabled because "
              "FI_HMEM_P2P_DISABLED was set to 1/on/true.");
    EXPECT_EQ(f.library_warnings[0].line.where.line, 2);
    ASSERT_EQ(f.streams.size(), 1u) << line_reader;
    EXPECT_EQ(f.streams.begin()->second.host, "algo-1");
  }
  // One warning per EFA device before the NCCL line (a host with several); a collector's copy of
  // the warning after a bar (one line, counted once); the glued line behind a collector's time.
  const std::string w =
      "libfabric:462:1673041636::efa:core:efa_user_info_should_support_hmem():337<warn> FI_HMEM "
      "capability requires peer to peer support, which is disabled because FI_HMEM_P2P_DISABLED "
      "was set to 1/on/true.";
  const std::string nccl = "algo-1:462:462 [0] NCCL INFO NET/OFI Selected Provider is efa\n";
  const std::string first = "algo-1:462:462 [0] NCCL INFO NET/OFI Using aws-ofi-nccl 1.7.1aws\n";
  for (const std::string& glued :
       {w + w + w + nccl, "2025-05-16T16:39:51.208-07:00" + w + nccl, "node1: " + w + nccl}) {
    const NcclRunFacts f = analyze_nccl_log_text(first + glued, "t.log");
    ASSERT_EQ(f.streams.size(), 1u) << glued;
    EXPECT_EQ(f.streams.begin()->second.host, "algo-1") << glued;
    EXPECT_EQ(f.library_warnings.size(), 1u) << glued;
  }
  const NcclRunFacts copy = analyze_nccl_log_text(
      first + "  | 2025-05-16T16:39:51.208-07:00" + w + " | " + w + "\n", "t");
  EXPECT_EQ(copy.library_warn_lines.at("libfabric"), 1u);
  const std::string_view end = "FI_HMEM_P2P_DISABLED was set to 1/on/true.";
  const std::string warn =
      "libfabric:462:1673041636::efa:core:efa_user_info_should_support_hmem():337<warn> x " +
      std::string(end);
  EXPECT_EQ(libfabric_unterminated_end(warn + "next"), warn.size());
  EXPECT_EQ(libfabric_unterminated_end(warn), std::string_view::npos);  // it ends the line
  EXPECT_EQ(libfabric_unterminated_end("h:1:2 [0] NCCL WARN x " + std::string(end) + "next"),
            std::string_view::npos);  // not libfabric's line
}

// aws/aws-ofi-nccl#889 as pasted: CloudWatch's columns before the line and its copy after a bar.
TEST(LibfabricLogLine, ReadBehindACollectorsColumns) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "  | "
      "2025-05-16T16:39:51.208-07:00libfabric:85:1747438790::core:core:fi_getinfo_():1392<warn> "
      "fi_getinfo: provider efa output empty list | libfabric:85:1747438790::core:core:"
      "fi_getinfo_():1392<warn> fi_getinfo: provider efa output empty list\n",
      "t.log");
  ASSERT_EQ(f.library_warnings.size(), 1u);
  EXPECT_EQ(f.library_warnings[0].provider, "core");
  EXPECT_EQ(f.library_warnings[0].message, "fi_getinfo: provider efa output empty list");
  EXPECT_EQ(f.library_warn_lines.at("libfabric"), 1u);  // the copy after the bar is the same line
  EXPECT_EQ(find_libfabric_head("  | 2025-05-16T16:39:51.208-07:00libfabric:85:1747438790::core:"
                                "core:fi_getinfo_():1392<warn> x"),
            33u);
  EXPECT_EQ(find_libfabric_head("libfabric: 1.18 loaded; libfabric:bad"), std::string_view::npos);
  EXPECT_TRUE(analyze_nccl_log_text("loading libfabric: 1.18 from /opt/amazon/efa\n", "t.log")
                  .library_warnings.empty());
}

}  // namespace
}  // namespace trainready
