#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "core/embedded.h"
#include "engine/engine.h"
#include "rules/registry.h"
#include "support/node_builder.h"

using namespace trainready;

TEST(Registry, SortedUniqueKebabCaseIds) {
  std::regex kebab("^[a-z0-9]+(-[a-z0-9]+)*$");
  std::string prev;
  for (const auto& r : all_rules()) {
    std::string id(r->id());
    EXPECT_TRUE(std::regex_match(id, kebab)) << id;
    EXPECT_LT(prev, id) << "registry must be sorted by id and unique";
    EXPECT_FALSE(r->title().empty());
    prev = id;
  }
  EXPECT_GE(all_rules().size(), 18u);
}

TEST(Registry, EveryRuleHasADocPageAndEveryPageARule) {
  std::set<std::string> docs;
  for (const auto& [id, page] : embedded_rule_docs()) {
    docs.insert(std::string(id));
    EXPECT_EQ(page.rfind("# " + std::string(id) + "\n", 0), 0u)
        << "page must start with its id: " << id;
    EXPECT_NE(page.find("## Fix"), std::string_view::npos) << id;
    EXPECT_TRUE(find_rule(id) != nullptr) << "doc page without a rule: " << id;
  }
  for (const auto& r : all_rules())
    EXPECT_TRUE(docs.count(std::string(r->id()))) << "no docs/rules/" << r->id() << ".md";
}

TEST(Engine, HealthyNodeHasNoFindingsNoSkipsAndClusterRulesNeedTwoNodes) {
  std::vector<NodeFacts> one{test::healthy_nd_h100("a")};
  Evaluation ev = evaluate_rules(one, Catalog::builtin());
  EXPECT_TRUE(ev.findings.empty());
  EXPECT_TRUE(ev.skipped.empty()) << ev.skipped.front().rule_id << ": "
                                  << ev.skipped.front().reason;
  std::vector<NodeFacts> two{test::healthy_nd_h100("a"), test::healthy_nd_h100("b")};
  Evaluation ev2 = evaluate_rules(two, Catalog::builtin());
  std::size_t cluster_rules = 0;
  for (const auto& r : all_rules()) cluster_rules += r->scope() == RuleScope::kCluster;
  EXPECT_GE(cluster_rules, 5u);  // pkey, placement, version, VM size, node-differs
  EXPECT_EQ(ev2.evaluations, ev.evaluations * 2 + static_cast<int>(cluster_rules));
}

TEST(Engine, FindingsAreSortedMostSevereFirstAndSelectionFilters) {
  NodeFacts n = test::healthy_nd_h100("a");
  n.modules.value.modules.erase("nvidia_peermem");
  n.nccl.value.env["NCCL_IB_DISABLE"] = "1";
  std::vector<NodeFacts> nodes{n};
  Evaluation ev = evaluate_rules(nodes, Catalog::builtin());
  ASSERT_EQ(ev.findings.size(), 2u);
  EXPECT_EQ(ev.findings[0].rule_id, "nccl-ib-disabled");
  EXPECT_EQ(ev.findings[0].node, "a");
  RuleSelection sel;
  sel.skip.insert("nccl-ib-disabled");
  EXPECT_EQ(evaluate_rules(nodes, Catalog::builtin(), sel).findings.size(), 1u);
}
