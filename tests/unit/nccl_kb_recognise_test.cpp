// nccl_kb_recognises (issue 30): NCCL's message text is told by the built-in knowledge base's
// message matchers; trail lines, CUDA / libc passthrough strings and other programs' text are not.
#include "knowledge/nccl_kb_recognise.h"

#include <gtest/gtest.h>

#include "knowledge/nccl_kb.h"

using namespace trainready;

namespace {

TEST(NcclKbRecognise, NcclsMessagesAreRecognised) {
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  EXPECT_TRUE(nccl_kb_recognises(kb, "Bootstrap : no socket interface found"));
  EXPECT_TRUE(nccl_kb_recognises(kb, "NET/IB : No device found."));
}

TEST(NcclKbRecognise, OtherTextIsNot) {
  const NcclKnowledgeBase& kb = NcclKnowledgeBase::builtin();
  EXPECT_FALSE(nccl_kb_recognises(kb, "epoch 1 loss 2.3"));
  EXPECT_FALSE(nccl_kb_recognises(kb, "CUDA error: out of memory"));  // passthrough text
  EXPECT_FALSE(nccl_kb_recognises(kb, "init.cc:1234 -> 2"));          // a trail line
  EXPECT_FALSE(nccl_kb_recognises(kb, "connect: Connection refused"));
}

}  // namespace
