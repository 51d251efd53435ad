#pragma once
// Where a Terraform resource is written: plan JSON has no positions, so findings on a plan are
// mapped back to the `resource "type" "name"` block in the .tf files (as checkov's
// --repo-root-for-plan-enrichment does), with the line of the attribute when it is written
// there, and the block's "# trainready:skip=" comments.
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace trainready {

struct TerraformBlock {
  std::string file;
  int line = 0;                                            // the `resource "type" "name" {` line
  int end_line = 0;                                        // its closing brace
  std::map<std::string, int> attributes;                   // top-level `name = ...` → line
  std::vector<std::pair<std::string, std::string>> skips;  // rule → justification
  int skips_line = 0;
};

class TerraformSourceIndex {
 public:
  // Reads every *.tf file under `root` (recursively, at most 2,000 files, skipping .terraform).
  static TerraformSourceIndex scan(const std::string& root);
  // Indexes one file's text (tests, and scan()).
  void add_text(const std::string& file, const std::string& text);
  // "type.name" (module prefixes and [index] removed from an address first).
  const TerraformBlock* find(const std::string& address) const;
  std::size_t size() const { return blocks_.size(); }

 private:
  std::map<std::string, TerraformBlock> blocks_;
};

// "module.a.azurerm_x.y[0]" → "azurerm_x.y".
std::string terraform_type_name(const std::string& address);

}  // namespace trainready
