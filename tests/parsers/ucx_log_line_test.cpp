// UCX's own log line (parsers/ucx_log_line.h) in the shapes src/ucs/debug/log.c printed from v1.5
// to v1.22, lines that only look like it, and what the NCCL log reader keeps of them.
#include "parsers/ucx_log_line.h"

#include <gtest/gtest.h>

#include "parsers/nccl_log.h"
#include "support/paths.h"

namespace trainready {
namespace {

TEST(UcxLogLine, EveryShape) {
  // v1.5's long form (openucx/ucx#4966 as posted), v1.16's long form with a thread name, the
  // short form before the log is set up (v1.5: nothing in brackets; v1.11 on: the thread name).
  struct Case {
    const char* text;
    const char* site;
    const char* level;
    const char* message;
  } cases[] = {
      {"[1585882859.110274] [149a368e-ef8d-493a-b46f-2e23bde3f0a1:63427:0]      ib_device.c:918  "
       "UCX  ERROR Invalid gid[0] on mlx5_6:1",
       "ib_device.c:918", "ERROR", "Invalid gid[0] on mlx5_6:1"},
      {"[1716918990.407988] [gpu1:2588768:0]     ucp_context.c:2137 UCX  INFO  Version 1.16.0",
       "ucp_context.c:2137", "INFO", "Version 1.16.0"},
      {"[1700000000.123456]      ucp_context.c:1100 UCX  WARN  transport 'ud' is not available",
       "ucp_context.c:1100", "WARN", "transport 'ud' is not available"},
      {"ucp_context.c:1321 UCX  WARN  network device 'mlx5_bond_0:1' is not available, please "
       "use one or more of: 'bond0'(tcp), 'eth0'(tcp), 'lo'(tcp)",
       "ucp_context.c:1321", "WARN",
       "network device 'mlx5_bond_0:1' is not available, please use one or more of: "
       "'bond0'(tcp), 'eth0'(tcp), 'lo'(tcp)"},  // ai-dynamo/dynamo#1209 as pasted, headless
      {"[1700000000.123456] [main]     ucp_context.c:1321 UCX  WARN  network device "
       "'mlx5_bond_0:1' is not available",
       "ucp_context.c:1321", "WARN", "network device 'mlx5_bond_0:1' is not available"},
  };
  for (const Case& c : cases) {
    const auto u = read_ucx_log_line(c.text);
    ASSERT_TRUE(u.has_value()) << c.text;
    EXPECT_EQ(u->component, "UCX") << c.text;
    EXPECT_EQ(u->site, c.site) << c.text;
    EXPECT_EQ(u->level, c.level) << c.text;
    EXPECT_EQ(u->message, c.message) << c.text;
  }
}

TEST(UcxLogLine, NotItsLines) {
  for (const char* t :
       {"[", "[1.2]", "[1585882859.110274]", "[1585882859.11027] f.c:1 UCX WARN x",
        "[1585882859.110274] [host:1:0] nofile:12 UCX WARN no file name",
        "[1585882859.110274] [host:1:0] f.c:12x UCX WARN bad line",
        "[1585882859.110274] [host:1:0] f.c:12 UCX LOUD not a level",
        "[1585882859.110274] [host:1:0 f.c:12 UCX WARN unclosed",
        "[2025-10-23 10:26:31] lrdn2146:1:2 [3] graph/search.cc:1127 NCCL WARN x",
        "[rank3]: [1585882859.110274] not UCX", "[1585882859.110274] [host:1:0] f.c:12 UCX WARN",
        "main.c:12 MYAPP WARN another program's headless line",
        "see main.c:12 UCX WARN in the middle of prose"})
    EXPECT_FALSE(read_ucx_log_line(t).has_value()) << t;
}

// ucs_log_fatal_error's shape (src/ucs/debug/assert.c, log.c): a fatal error, a failed assertion
// or a log call at UCX_LOG_LEVEL_TRIGGER, each before abort(). Lines as posted in openucx/ucx
// #3730, #5045, #2490 (an older UCX's "FATAL:" text) and v1.5's "UCX" before the message.
TEST(UcxLogLine, FatalErrorsAreReadAsFatal) {
  struct Case {
    std::string_view line, site, message;
  };
  for (const Case& c : {
           Case{"[jazz09:67285:0:67285]    ucp_ep.inl:26   Assertion "
                "`ucp_ep_config(ep)->key.am_lane != ((ucp_lane_index_t)-1)' failed",
                "ucp_ep.inl:26",
                "Assertion `ucp_ep_config(ep)->key.am_lane != ((ucp_lane_index_t)-1)' failed"},
           Case{"[server:219528:0:219528]    ud_iface.c:378  Assertion `local_gid_u16[5] == "
                "0xffff' failed",
                "ud_iface.c:378", "Assertion `local_gid_u16[5] == 0xffff' failed"},
           Case{"[hpc-arm-hp01:87219:0:87219] ib_mlx5_log.c:113  FATAL: Error on QP 0x24125 "
                "wqe[1338]: Transport retry count exceeded (synd 0x15 vend 0x81) opcode SEND",
                "ib_mlx5_log.c:113",
                "FATAL: Error on QP 0x24125 wqe[1338]: Transport retry count exceeded (synd 0x15 "
                "vend 0x81) opcode SEND"},
           // v1.5.x put "UCX" before the message (assert.c "%13s:%-4u UCX %s").
           Case{"[gpu-1:4123 :0:4130]   ucp_worker.c:1720 UCX Fatal: failed to set active "
                "message handler id 1",
                "ucp_worker.c:1720", "Fatal: failed to set active message handler id 1"},
           // v1.12 and later name UCX's own threads ("a": its async thread).
           Case{"[gpu-1:4123 :a:4130]    ib_mlx5_log.c:179  Transport retry count exceeded on "
                "mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)",
                "ib_mlx5_log.c:179",
                "Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)"},
       }) {
    const auto u = read_ucx_log_line(c.line);
    ASSERT_TRUE(u) << c.line;
    EXPECT_EQ(u->level, "FATAL");
    EXPECT_EQ(u->component, "UCX");
    EXPECT_EQ(u->site, c.site);
    EXPECT_EQ(u->message, c.message);
  }
  for (std::string_view no : {
           // The signal handler's line has no FILE:LINE (the crash reader's, not this one's).
           "[clx-orion-045:19577:0:19577] Caught signal 11 (Segmentation fault: Sent by the "
           "kernel at address (nil))",
           "[host:123:0] ucp_ep.c:12 Fatal: x",           // two colons: not the fatal head
           "[host:12a:0:123] ucp_ep.c:12 Fatal: x",       // the pid is a number
           "[host:123:0:12x] ucp_ep.c:12 Fatal: x",       // so is the thread id
           "[host:123:0:123] ucp_ep.c:12 ",               // no message
           "[host:123:0:123] ucp_ep:12 Fatal: x",         // a file name has a dot
           "[12:34:56:789] train.py:45 loss=1.0 step 1",  // a program's own line: not UCX's source
           "[host:123:Worker-1:123] ucp_ep.c:12 Fatal: x",  // not a thread UCX names
       })
    EXPECT_FALSE(read_ucx_log_line(no)) << no;
}

// openucx/ucx#4966: an nccl-tests run under mpirun's UCX pml, UCX's errors on each host.
TEST(UcxLogLine, TheReaderKeepsWarningsAndErrorsOncePerSite) {
  const NcclRunFacts f = analyze_nccl_logs(
      {std::string(TR_TEST_DATA) + "/nccl-shapes/ucx4966-mpirun-ucx-error-invalid-gid.log"});
  ASSERT_EQ(f.library_warnings.size(), 1u);
  EXPECT_EQ(f.library_warnings[0].library, "UCX");
  EXPECT_EQ(f.library_warnings[0].site, "ib_device.c:918");
  EXPECT_EQ(f.library_warnings[0].level, "ERROR");
  EXPECT_EQ(f.library_warnings[0].message, "Invalid gid[0] on mlx5_6:1");
  EXPECT_EQ(f.library_warnings[0].line.where.line, 3);
  EXPECT_EQ(f.library_warn_lines.at("UCX"), 4u);
  EXPECT_TRUE(has_nccl_output(f));
  // ai-dynamo/dynamo#1209 as pasted: quoted in markdown, the head cut off.
  const NcclRunFacts q = analyze_nccl_log_text(
      "got error: \n> ucp_context.c:1321 UCX  WARN  network device 'mlx5_bond_0:1' is not "
      "available, please use one or more of: 'bond0'(tcp), 'eth0'(tcp), 'lo'(tcp)\n",
      "t.log");
  ASSERT_EQ(q.library_warnings.size(), 1u);
  EXPECT_EQ(q.library_warnings[0].line.where.line, 2);
  EXPECT_TRUE(has_nccl_output(q));
  // Below WARN: not kept.
  EXPECT_TRUE(analyze_nccl_log_text("[1716918990.407988] [gpu1:2588768:0]     ucp_context.c:2137 "
                                    "UCX  INFO  Version 1.16.0\n",
                                    "t.log")
                  .library_warnings.empty());
}

}  // namespace
}  // namespace trainready
