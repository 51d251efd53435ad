#include <gtest/gtest.h>

#include "core/input_error.h"
#include "parsers/env_file.h"

using namespace trainready;

TEST(EnvCapture, EnvOutputAndProcEnvironKeepOnlyNcclAndUcx) {
  auto a = parse_env_capture(
      "PATH=/usr/bin\nNCCL_IB_DISABLE=1\nexport NCCL_NET=\"Socket\"\nUCX_TLS=tcp\nSECRET=x\n");
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a["NCCL_IB_DISABLE"], "1");
  EXPECT_EQ(a["NCCL_NET"], "Socket");
  EXPECT_EQ(a.count("SECRET"), 0u);
  auto b = parse_env_capture(
      std::string("HOME=/root\0NCCL_DEBUG=INFO\0NCCL_TOPO_FILE=/opt/x.xml\0", 52));
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(b["NCCL_TOPO_FILE"], "/opt/x.xml");
}

TEST(NcclConf, ParsesAndRejectsNonAssignments) {
  auto c = parse_nccl_conf(
      "# Azure HPC image\nNCCL_IB_PCI_RELAXED_ORDERING=1\n\nNCCL_TOPO_FILE = "
      "/opt/microsoft/ndv5-topo.xml\n",
      "nccl.conf");
  EXPECT_EQ(c["NCCL_TOPO_FILE"], "/opt/microsoft/ndv5-topo.xml");
  try {
    parse_nccl_conf("NCCL_A=1\nthis is not a setting\n", "nccl.conf");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
  }
}
