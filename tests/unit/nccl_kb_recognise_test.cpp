// NcclTextRecogniser (issue 30): NCCL's message text of every level is told by the built-in
// knowledge base's matchers, spelt as a human retypes it; CUDA and verbs error strings (its
// passthrough entries) when long or on a line that names the stack; trail lines and other
// programs' text are not.
#include "knowledge/nccl_kb_recognise.h"

#include <gtest/gtest.h>

#include "knowledge/nccl_kb.h"

using namespace trainready;

namespace {

const NcclTextRecogniser& recogniser() {
  static const NcclTextRecogniser r(NcclKnowledgeBase::builtin());
  return r;
}

TEST(NcclKbRecognise, NcclsMessagesAreRecognised) {
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  EXPECT_TRUE(nccl_kb_recognises(kb, "Bootstrap : no socket interface found"));
  EXPECT_TRUE(nccl_kb_recognises(kb, "NET/IB : No device found."));
  // An alternative of an entry whose match has several.
  EXPECT_TRUE(nccl_kb_recognises(kb, "Could not find NET with id 0"));
  // A socket WARN's body as pasted alone (NVIDIA/nccl#1515): its function name says whose it is.
  EXPECT_TRUE(nccl_kb_recognises(
      kb,
      "socketStartConnect: Connect to 10.45.234.83<47527> failed : Software caused connection "
      "abort"));
  EXPECT_TRUE(nccl_kb_recognises(kb, "Net : Connect to 10.0.0.2<41234> failed : No route to host"));
}

TEST(NcclKbRecognise, RetypedSpellingIsReadInNcclsOwn) {
  for (const char* typed :
       {"NET/IB: No device found.", "NET/IB : No device found", "  NET/IB:No device found.  "}) {
    auto r = recogniser().read(typed);
    ASSERT_TRUE(r) << typed;
    EXPECT_EQ(r->entry->id, "ib-no-device-found") << typed;
    EXPECT_NE(r->text.find("NET/IB : No device found"), std::string::npos) << r->text;
    EXPECT_FALSE(r->info);  // the entry reads either level
  }
  auto lower = recogniser().read("could not find NET with id 0");  // the first letter's case
  ASSERT_TRUE(lower);
  EXPECT_EQ(lower->text, "Could not find NET with id 0");
  // The tolerance is NCCL's tag spacing, not any text around the words.
  EXPECT_FALSE(recogniser().read("usb 1-1: No device found"));
  EXPECT_FALSE(recogniser().read("NET/IBX No device found"));
}

// RCCL prints NCCL's texts with HIP names (data/nccl-kb/hip-names.txt): recognised in NCCL's
// spelling and kept as printed; a HIP-like word the table does not hold is not spelled.
TEST(NcclKbRecognise, RcclsHipNamedTextIsRecognisedAsPrinted) {
  const auto got = recogniser().read("hipDriverGetVersion failed with 3");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->text, "hipDriverGetVersion failed with 3");
  EXPECT_NE(got->entry->match.text.find("cuDriverGetVersion"), std::string::npos);
  EXPECT_FALSE(recogniser().read("hipDriverGetVersionX failed with 3").has_value());
}

TEST(NcclKbRecognise, InfoOnlyMessagesAreInfoLines) {
  auto r = recogniser().read(
      "NET/Plugin : No plugin found (libnccl-net.so), using internal "
      "implementation");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->info);
  EXPECT_EQ(r->entry->id, "net-plugin-not-found");
}

TEST(NcclKbRecognise, OtherProducersStringsNeedLengthOrTheStackNamed) {
  // Long enough alone: rdma-core's ibv_event_type_str / ibv_wc_status_str, CUDA's strings.
  auto ev = recogniser().read("local access violation work queue error when upgrade to v2.20");
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->entry->id, "ibv-event-qp-error");
  EXPECT_TRUE(recogniser().read("transport retry counter exceeded"));
  EXPECT_TRUE(recogniser().read("an illegal memory access was encountered"));
  auto p2p = recogniser().read(
      "Failed: Cuda error x.cuh:307 'peer access is not supported "
      "between these two devices'");
  ASSERT_TRUE(p2p);
  EXPECT_EQ(p2p->entry->id, "cuda-peer-access-unsupported");
  // TensorFlow's own warning quoting the driver's error (tensorflow/tensorflow#30887, 10 GPUs in
  // one process); NCCL's own "Cuda failure" WARN of it stays checks.yaml's.
  auto peers = recogniser().read(
      "2019-07-25 09:33:34.093469: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1597] Unable "
      "to enable peer access between device ordinals 0 and 9, status: Internal: failed to enable "
      "peer access from 0x7f to 0x7f: CUDA_ERROR_TOO_MANY_PEERS: peer mapping resources exhausted");
  ASSERT_TRUE(peers);
  EXPECT_EQ(peers->entry->id, "cuda-too-many-peers");
  EXPECT_FALSE(recogniser().read("peer mapping failed"));
  // A CUDA error by its enum name (Runtime or Driver API), as CI logs and frameworks print it.
  auto named = recogniser().read(
      "Multi-GPU tests fail at the first NCCL collective with CUDA error 217 "
      "(cudaErrorPeerAccessUnsupported).");
  ASSERT_TRUE(named);
  EXPECT_EQ(named->entry->id, "cuda-peer-access-unsupported");
  auto driver = recogniser().read("cuMemImportFromShareableHandle: CUDA_ERROR_ILLEGAL_ADDRESS");
  ASSERT_TRUE(driver);
  EXPECT_EQ(driver->entry->id, "cuda-illegal-address");
  // One name that starts another is not it: cudaErrorInvalidDeviceFunction is no device ordinal.
  auto function = recogniser().read("CUDA error: cudaErrorInvalidDeviceFunction in my kernel");
  ASSERT_TRUE(function);
  EXPECT_EQ(function->entry->id, "no-kernel-image");
  // Short ones only beside CUDA / NCCL / verbs.
  EXPECT_TRUE(recogniser().read("CUDA error: out of memory"));
  EXPECT_FALSE(recogniser().read("java.lang.OutOfMemoryError: out of memory"));
  auto init = recogniser().read("NCCL test failed of initialization error");
  ASSERT_TRUE(init);
  EXPECT_EQ(init->entry->id, "cuda-initialization-error");
  EXPECT_FALSE(recogniser().read("there was an initialization error in my script"));
  EXPECT_FALSE(recogniser().read("ssh: local protection error"));
  EXPECT_TRUE(recogniser().read("ibv_poll_cq: local protection error"));
}

TEST(NcclKbRecognise, OtherTextIsNot) {
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  EXPECT_FALSE(nccl_kb_recognises(kb, "epoch 1 loss 2.3"));
  EXPECT_FALSE(nccl_kb_recognises(kb, "init.cc:1234 -> 2"));  // a trail line
  EXPECT_FALSE(nccl_kb_recognises(kb, "connect: Connection refused"));
  EXPECT_FALSE(nccl_kb_recognises(kb, "ssh: connect to host 10.0.0.2 failed : refused"));
  EXPECT_FALSE(nccl_kb_recognises(kb, "error: something failed, see above"));
  EXPECT_FALSE(nccl_kb_recognises(kb, ""));
  EXPECT_FALSE(nccl_kb_recognises(kb, "."));
  EXPECT_FALSE(nccl_kb_recognises(kb, std::string(4096, 'N')));
}

}  // namespace
