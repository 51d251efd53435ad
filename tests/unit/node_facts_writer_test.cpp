// write_node_facts_json (the fleet report's nodes, written without a tree) is to_json(n).dump(2)
// byte for byte: on the bundled examples, on a node with every optional GPU field set, every fact
// missing, strings that need escaping or are not UTF-8, and empty device lists.
#include <gtest/gtest.h>

#include "codec/node_facts_json.h"
#include "core/root.h"
#include "probes/probes.h"
#include "support/paths.h"

using namespace trainready;

namespace {

// What the report holds at `indent`: the tree's dump, each line after the first indented.
std::string tree_text(const NodeFacts& n, unsigned indent) {
  const std::string flat = to_json(n).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  for (char c : flat) {
    out += c;
    if (c == '\n') out.append(indent, ' ');
  }
  return out;
}

std::string streamed(const NodeFacts& n, unsigned indent) {
  std::string out = "prefix";
  write_node_facts_json(out, n, indent);
  EXPECT_EQ(out.rfind("prefix", 0), 0u);
  return out.substr(6);
}

NodeFacts probed(const char* example) {
  FsRoot root(trainready::test::example(example));
  return probe_node(root, ProbeOptions{});
}

}  // namespace

TEST(NodeFactsWriter, BundledExamplesAreWrittenAsTheTreeDumps) {
  for (const char* ex :
       {"nd-h100-healthy", "nd-h100-split", "nd-a100-ib-disabled", "nc40-multinode"}) {
    const NodeFacts n = probed(ex);
    EXPECT_EQ(streamed(n, 4), tree_text(n, 4)) << ex;
    EXPECT_EQ(streamed(n, 0), tree_text(n, 0)) << ex;
  }
}

TEST(NodeFactsWriter, OptionalFieldsEscapesAndMissingFacts) {
  NodeFacts n = probed("nd-h100-healthy");
  ASSERT_TRUE(n.gpus.ok());
  ASSERT_FALSE(n.gpus.value.gpus.empty());
  Gpu& g = n.gpus.value.gpus[0];
  g.clocks_event_reasons = 4;
  g.ecc_enabled = true;
  g.ecc_uncorrected_volatile = 3;
  g.fabric_clique_id = 7;
  g.fabric_cluster_uuid = "c\"uuid\\";
  g.fabric_state = "completed";
  g.fabric_status = 0;
  g.nvlink_active = 18;
  g.nvlink_crc_errors = 1;
  g.nvlink_links = 18;
  g.nvlink_recovery_errors = 2;
  g.remap_failure = false;
  g.remap_pending = true;
  g.name = "NVIDIA H100 \xe2\x80\x94 80GB\t\x01";  // UTF-8, a tab and a control character
  g.serial = "bad \xff\xfe utf-8";                 // replaced, as the tree's dump does
  ASSERT_TRUE(n.ib.ok());
  n.ib.value.excerpt = "line 1\nline 2 \x7f";
  n.ib.value.devices[0].ports[0].rate_gbps = Fact<double>::present(400.5);
  n.ib.value.devices[0].ports[0].state = Fact<std::string>::unreadable("EACCES \"state\"");
  n.pci.value.excerpt = "00:00.0 x";
  n.pci.value.devices[0].numa_node = -1;
  EXPECT_EQ(streamed(n, 4), tree_text(n, 4));

  NodeFacts empty = n;
  empty.ib.value.devices.clear();
  empty.ib.value.devices.emplace_back();  // a device without ports
  empty.pci.value.devices.clear();
  empty.gpus.value.gpus.clear();
  EXPECT_EQ(streamed(empty, 4), tree_text(empty, 4));

  NodeFacts missing;  // every fact "not collected"
  missing.label = "none";
  missing.gpus = Fact<GpuFacts>::missing("no driver", Provenance{"/proc/driver/nvidia", 3});
  EXPECT_EQ(streamed(missing, 2), tree_text(missing, 2));
}
