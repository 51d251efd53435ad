#include <gtest/gtest.h>

#include <chrono>

#include "probes/probes.h"
#include "support/loopback_http.h"
#include "support/paths.h"

using namespace trainready;
using namespace trainready::test;

// Recorded IMDS responses served from 127.0.0.1; nothing here talks to the real metadata address.
TEST(ImdsProbe, AsksWithMetadataHeaderAndParses) {
  LoopbackHttp server(200, read_fixture("imds/walinuxagent-imds-compute-vmss-trustedlaunch.json"));
  ProbeOptions opt;
  opt.imds_url = server.url("/metadata/instance?api-version=2021-02-01");
  Fact<ImdsInfo> i = probe_imds(FsRoot("/"), Fact<DmiInfo>::missing("x"), opt);
  ASSERT_TRUE(i.ok()) << i.describe();
  EXPECT_EQ(i->vmss_name, "crpteste9vflji9");
  std::string req = server.last_request();
  EXPECT_NE(req.find("GET /metadata/instance?api-version=2021-02-01 HTTP/1.1"), std::string::npos);
  EXPECT_NE(req.find("Metadata: true"), std::string::npos);
}

TEST(ImdsProbe, HttpErrorsAndSilenceBecomeUnreadableWithinTheTimeout) {
  LoopbackHttp not_found(404, "not here");
  ProbeOptions opt;
  opt.imds_url = not_found.url("/metadata/instance");
  Fact<ImdsInfo> i = probe_imds(FsRoot("/"), Fact<DmiInfo>::missing("x"), opt);
  EXPECT_EQ(i.status, FactStatus::kUnreadable);
  EXPECT_NE(i.reason.find("404"), std::string::npos);

  LoopbackHttp silent(0, "");  // accepts, never answers
  opt.imds_url = silent.url("/metadata/instance");
  opt.imds_timeout_ms = 300;
  auto t0 = std::chrono::steady_clock::now();
  Fact<ImdsInfo> j = probe_imds(FsRoot("/"), Fact<DmiInfo>::missing("x"), opt);
  EXPECT_EQ(j.status, FactStatus::kUnreadable);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
}

TEST(ImdsProbe, NotAskedOffAzureNorWhenDisabled) {
  DmiInfo other{"QEMU", "Standard PC", "", false};
  Fact<ImdsInfo> i = probe_imds(FsRoot("/"), Fact<DmiInfo>::present(other), {});
  EXPECT_EQ(i.status, FactStatus::kMissing);
  EXPECT_NE(i.reason.find("not an Azure VM"), std::string::npos);
  ProbeOptions off;
  off.imds_disabled = true;
  DmiInfo azure{"Microsoft Corporation", "Virtual Machine", "7783-7084-3265-9085-8269-3286-77",
                true};
  EXPECT_EQ(probe_imds(FsRoot("/"), Fact<DmiInfo>::present(azure), off).status,
            FactStatus::kMissing);
}
