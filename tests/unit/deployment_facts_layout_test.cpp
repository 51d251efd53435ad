// The deployment facts' records are held for every resource of a template at once (issue 35:
// peak memory at most 3x the template), so their size is checked: a field added in the wrong
// place, or a shared text turned back into a string, shows here before it shows in
// bench/lint_ratio.py.
#include "facts/deployment_facts.h"

#include <gtest/gtest.h>

#include <string>

namespace trainready {
namespace {

TEST(DeploymentFactsLayout, SettingsKeepTheirStateInTheProvenancePadding) {
  // Provenance: a shared source (8 bytes) and a line (4), padded to 16; the state and a bool
  // value fit in that padding, the text as written is shared (8 bytes, not a string's 32).
  EXPECT_LE(sizeof(Setting<bool>), 24u);
  EXPECT_LE(sizeof(Setting<long long>), 32u);
  EXPECT_LE(sizeof(Setting<std::string>), sizeof(std::string) + 24u);
  EXPECT_LE(sizeof(DeploymentResource), 656u);
}

TEST(DeploymentFactsLayout, ASettingReadsAsItWasMade) {
  Setting<bool> b = Setting<bool>::known(true, "[less(parameters('n'), 101)]", {"t.json", 7});
  EXPECT_TRUE(b.is_known());
  EXPECT_TRUE(b.value);
  EXPECT_EQ(b.raw, "[less(parameters('n'), 101)]");
  EXPECT_EQ(b.where.str(), "t.json:7");
  Setting<long long> u = Setting<long long>::unknown("[parameters('capacity')]", {"t.json", 9});
  EXPECT_TRUE(u.is_unknown());
  EXPECT_EQ(u.raw + " at " + u.where.str(), "[parameters('capacity')] at t.json:9");
  Setting<std::string> none;
  EXPECT_TRUE(none.is_unset());
  EXPECT_TRUE(none.raw.empty());
}

}  // namespace
}  // namespace trainready
