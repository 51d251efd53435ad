// `trainready nccl` on the shapes a real log comes in (issue 30 items 3 and 4): a framework's
// lines with no NCCL line, and an ncclras report pasted deep inside a job's log.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/paths.h"
#include "support/report_json.h"
#include "support/run_cli.h"

using namespace trainready::test;
using nlohmann::json;

namespace {

const json* finding(const json& j, const std::string& rule) {
  for (const json& f : j["findings"])
    if (f["rule"] == rule) return &f;
  return nullptr;
}

// Was exit 2, "no NCCL output found": the log holds only PyTorch's rendezvous error.
TEST(NcclShapesCli, FrameworkOnlyLogGetsTheFrameworksReading) {
  json j = report_json({"nccl", std::string(TR_TEST_DATA) +
                                    "/nccl-shapes/ezflow194-store-based-barrier-timeout.log"},
                       1);
  ASSERT_NE(finding(j, "framework-rendezvous-failed"), nullptr) << j.dump(2);
}

// The report comes after 64 KiB of the job's own output, each line behind srun's "0: " label:
// the file's head says nothing of RAS, so only the log reader can find it.
TEST(NcclShapesCli, RasReportPastedDeepInALogIsJudged) {
  const std::string log = temp_dir("nccl-shapes-ras") + "/job.log";
  {
    std::ofstream out(log);
    for (int i = 0; i < 900; ++i)
      out << "0: ndh100-b01:5101:5101 [1] NCCL INFO Channel 00/0 : 5[1] -> 6[2] via P2P/IPC\n";
    std::ifstream ras(std::string(TR_TEST_DATA) +
                      "/nccl-telemetry/ras-text-2.29.7-rank5-behind-allreduce.txt");
    std::string line;
    while (std::getline(ras, line)) out << "0: " << line << "\r\n";
  }
  json j = report_json({"nccl", log}, 1);
  const json* f = finding(j, "nccl-ranks-behind");
  ASSERT_NE(f, nullptr) << j.dump(2);
  EXPECT_NE(std::string((*f)["message"]).find("rank 5"), std::string::npos) << (*f)["message"];
}

// Was "No findings": NCCL's error trail, then PyTorch's result under torchrun's "[rank1]:" prefix,
// whose "ncclInternalError: Internal check failed." the trail's reading had taken for the WARN
// it follows while the framework's reading deferred to the trail (sweep 5).
TEST(NcclShapesCli, TrailThenTheFrameworksResultIsRead) {
  json j = report_json(
      {"nccl", std::string(TR_TEST_DATA) + "/nccl-shapes/vllm10453-trail-then-torchrun-result.log"},
      1);
  const json* f = finding(j, "nccl-message");
  ASSERT_NE(f, nullptr) << j.dump(2);
  EXPECT_NE(std::string((*f)["message"]).find("ncclInternalError"), std::string::npos);
}

// Abseil's "*** SIGSEGV received at time=..." and its "PC: @ ... ncclLocalOpAppend()" frame: the
// crash inside NCCL comes first, before the timeouts the other ranks then hit (sweep 6).
TEST(NcclShapesCli, AbseilCrashInsideNcclComesBeforeTheTimeouts) {
  json j =
      report_json({"nccl", std::string(TR_TEST_DATA) +
                               "/nccl-shapes/nccl2213-abseil-sigsegv-in-nccl-then-watchdog.log"},
                  1);
  ASSERT_FALSE(j["findings"].empty()) << j.dump(2);
  EXPECT_EQ(j["findings"][0]["rule"], "framework-nccl-error") << j.dump(2);
  EXPECT_NE(std::string(j["findings"][0]["message"]).find("ncclLocalOpAppend"), std::string::npos);
}

}  // namespace

// Issue 30: NCCL's message text pasted without its "host:pid:tid [dev] NCCL WARN" head (an
// excerpt, an issue's title) was refused as "no NCCL output found"; the knowledge base's
// matchers, written from NCCL's format strings, now recognise it. Other text stays refused.
TEST(NcclShapesCli, NcclMessageWithoutItsHeadIsRead) {
  const std::string d = temp_dir("nccl-unmarked");
  std::ofstream(d + "/excerpt.log") << "Traceback (most recent call last):\n"
                                    << "  File \"train.py\", line 12, in <module>\n"
                                    << "Bootstrap : no socket interface found\n";
  json j = report_json({"nccl", d + "/excerpt.log"}, 1);
  ASSERT_FALSE(j["findings"].empty()) << j.dump(2);
  const json& ev = j["findings"][0]["evidence"][0];
  EXPECT_EQ(ev["line"], 3) << j.dump(2);
  EXPECT_NE(ev["source"].get<std::string>().find("excerpt.log"), std::string::npos);
  // A generic "No device found" or "connection refused" is not NCCL's alone: still refused.
  std::ofstream(d + "/other.log") << "usb 1-1: No device found\nconnect: Connection refused\n";
  CliResult r = run_trainready({"nccl", d + "/other.log"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("other.log: no NCCL output found"), std::string::npos) << r.err;
}

// Issue 30: an input that names NCCL and nccl-tests but holds nothing readable (nccl-tests#112's
// title and mpirun command) is not refused: nccl-log-unplaced says what it holds and what to
// capture; an info finding, so the default --fail-on exits 0. Connection lines quoted without
// their head (nccl#897) are read as connections (a warning: exit 0 too).
TEST(NcclShapesCli, InputThatOnlyNamesNcclIsPlacedNotRefused) {
  json j = report_json(
      {"nccl", std::string(TR_TEST_DATA) + "/nccl-shapes/nccltests112-title-and-command.log"}, 0);
  ASSERT_EQ(j["findings"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["findings"][0]["rule"], "nccl-log-unplaced");
  EXPECT_EQ(j["findings"][0]["evidence"].size(), 2u) << j.dump(2);
  json c = report_json(
      {"nccl", std::string(TR_TEST_DATA) + "/nccl-shapes/nccl897-connection-fragments.log"}, 0);
  ASSERT_FALSE(c["findings"].empty()) << c.dump(2);
  EXPECT_EQ(c["findings"][0]["rule"], "nccl-gdrdma-off") << c.dump(2);
}

// vLLM's pynccl version line (vllm-project/vllm#6732's shape: Ray worker prefixes) is read as the
// NCCL version; with nothing else of NCCL's, nccl-log-unplaced still says what to capture.
TEST(NcclShapesCli, OnlyAVersionLineIsReadAndPlaced) {
  const std::string d = temp_dir("nccl-version-only");
  std::ofstream(d + "/vllm.log")
      << "INFO 07-20 17:27:20 pynccl.py:63] vLLM is using nccl==2.21.5\n"
         "(RayWorkerWrapper pid=593, ip=10.5.6.103) INFO 07-20 17:27:20 utils.py:737] Found nccl "
         "from library libnccl.so.2\n";
  json j = report_json({"nccl", d + "/vllm.log"}, 0);
  ASSERT_EQ(j["findings"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["findings"][0]["rule"], "nccl-log-unplaced");
  EXPECT_NE(j["findings"][0]["message"].get<std::string>().find("but its version (2.21.5)"),
            std::string::npos)
      << j.dump(2);
  EXPECT_EQ(j["nccl_log"]["versions"][0]["version"], "2.21.5") << j.dump(2);
}

namespace {

json excerpt_report(const std::string& name, const std::string& text, int code) {
  const std::string d = temp_dir("nccl-excerpt");
  std::ofstream(d + "/" + name) << text;
  return report_json({"nccl", d + "/" + name}, code);
}

// NCCL prints "NET/IB : No device found." at INFO (src/transport/net_ib/init.cc:470 @
// v2.30.7-1); retyped as "NET/IB: ..." in an excerpt it is still NCCL's, and the entry's reading
// (info: on its own not a failure) is reported, never as an error.
TEST(NcclShapesCli, RetypedInfoLineGetsItsInfoReading) {
  json j = excerpt_report("ib.log", "NET/IB: No device found.\n", 0);
  const json* f = finding(j, "nccl-message");
  ASSERT_NE(f, nullptr) << j.dump(2);
  EXPECT_EQ((*f)["severity"], "info");
  EXPECT_NE(f->dump().find("ib-no-device-found"), std::string::npos) << f->dump();
  EXPECT_NE(f->dump().find("rdma-core"), std::string::npos) << f->dump();
  for (const json& x : j["findings"]) EXPECT_NE(x["severity"], "error") << x.dump(2);
}

// A healthy INFO line (the internal net plugin used, no external one) gives no error finding.
TEST(NcclShapesCli, HealthyInfoExcerptGivesNoError) {
  json j = excerpt_report(
      "plugin.log",
      "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation\n", 0);
  for (const json& x : j["findings"]) EXPECT_NE(x["severity"], "error") << x.dump(2);
}

// CUDA's and rdma-core's own strings, and nccl-tests' summary, are read with their knowledge.
TEST(NcclShapesCli, OtherProducersStringsAreRead) {
  json c = excerpt_report("cuda.log", "NCCL test failed of initialization error\n", 1);
  const json* f = finding(c, "nccl-known-signature");
  ASSERT_NE(f, nullptr) << c.dump(2);
  EXPECT_NE(f->dump().find("cuda-initialization-error"), std::string::npos);
  EXPECT_EQ((*f)["evidence"][0]["line"], 1);

  json v = excerpt_report("verbs.log", "x\nlocal access violation work queue error\n", 1);
  f = finding(v, "nccl-known-signature");
  ASSERT_NE(f, nullptr) << v.dump(2);
  EXPECT_NE(f->dump().find("ibv-event-qp-error"), std::string::npos);
  EXPECT_EQ((*f)["evidence"][0]["line"], 2);

  json t = excerpt_report("oob.log", "# Out of bounds values : 248 FAILED\n", 1);
  ASSERT_NE(finding(t, "nccl-tests-wrong-results"), nullptr) << t.dump(2);
  // "OK" (0 values out of bounds) is nccl-tests' healthy verdict: no finding.
  json ok = excerpt_report("ok.log", "# Out of bounds values : 0 OK\n", 0);
  EXPECT_EQ(finding(ok, "nccl-tests-wrong-results"), nullptr) << ok.dump(2);
}

// Prose with the word "error" is no NCCL output: refused, quoting the line it saw (escaped) and
// naming what to capture.
TEST(NcclShapesCli, RefusalSaysWhatItSawAndWhatToCapture) {
  const std::string d = temp_dir("nccl-refuse");
  std::ofstream(d + "/prose.log") << "epoch 1\nthere was an initialization error in \x1b[31mmy "
                                     "script\nerror again\n";
  CliResult r = run_trainready({"nccl", d + "/prose.log"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("prose.log: no NCCL output found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("prose.log:2, 'there was an initialization error in \\x1b[31mmy script'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("NCCL_DEBUG=INFO"), std::string::npos);
  EXPECT_NE(r.err.find("NCCL_DEBUG_FILE"), std::string::npos);
  EXPECT_NE(r.err.find("traceback"), std::string::npos);
  EXPECT_EQ(r.err.find("error again"), std::string::npos);  // only the first
}

}  // namespace

// rdma-core's libibverbs prints this for a device no provider drives (a container without
// libmlx5): the device is missing from ibv_get_device_list, so NCCL finds no IB device. Pasted
// beside nccl-tests' failure line (NVIDIA/nccl-tests#41's shape), and inside a NCCL log, it is
// read; its other warnings (a config directory it could not open) are not.
TEST(NcclShapesCli, AVerbsDeviceWithoutItsProviderIsRead) {
  const std::string d = temp_dir("nccl-ibv-provider");
  const std::string log = d + "/run.log";
  const std::string tail = "ip-0AB85F07: Test NCCL failure common.cu:775 'internal error'\n";
  std::ofstream(log) << "libibverbs: Warning: no userspace device-specific driver found for "
                        "/sys/class/infiniband_verbs/uverbs0\n"
                     << tail;
  json j = report_json({"nccl", log}, 1);
  bool read = false;
  for (const auto& f : j["findings"])
    read = read ||
           f["message"].get<std::string>().find("ibv-no-userspace-driver") != std::string::npos;
  EXPECT_TRUE(read) << j.dump();
  // Behind a run of another kind (a "couldn't load driver" line per provider the image lists).
  {
    std::ofstream out(log);
    for (int i = 0; i < 20; ++i)
      out << "libibverbs: Warning: couldn't load driver 'libprov" << i << "-rdmav34.so': cannot "
          << "open shared object file\n";
    out << "libibverbs: Warning: no userspace device-specific driver found for "
           "/sys/class/infiniband_verbs/uverbs0\n"
        << tail;
  }
  j = report_json({"nccl", log}, 1);
  read = false;
  for (const auto& f : j["findings"])
    read = read ||
           f["message"].get<std::string>().find("ibv-no-userspace-driver") != std::string::npos;
  EXPECT_TRUE(read) << j.dump();
  // Inside a NCCL log of a multi-node run: NCCL found no IB device and used sockets.
  const std::string p = "node1:100:100 [0] NCCL INFO ";
  std::ofstream(log) << p << "NCCL version 2.18.1+cuda12.1\n"
                     << "libibverbs: Warning: no userspace device-specific driver found for "
                        "/sys/class/infiniband_verbs/uverbs0\n"
                     << p << "NET/IB : No device found.\n"
                     << p << "NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
                     << p << "Using network Socket\n"
                     << p << "Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0\n";
  j = report_json({"nccl", log}, 1);
  read = false;
  for (const auto& f : j["findings"])
    read = read ||
           (f["message"].get<std::string>().find("ibv-no-userspace-driver") != std::string::npos &&
            f["cause"].get<std::string>().find("Multi-node") != std::string::npos);
  EXPECT_TRUE(read) << j.dump();
  std::ofstream(log) << "libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'.\n"
                     << tail;
  j = report_json({"nccl", log}, 1);
  for (const auto& f : j["findings"])
    EXPECT_EQ(f["message"].get<std::string>().find("ibv-no-userspace-driver"), std::string::npos);
}
