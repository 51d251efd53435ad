// data/nccl-kb/*.yaml as text (cmake/embed.cmake writes it into the build dir): what the tests
// parse to compare with the packed knowledge base and to compile every regex. Not in the binary.
#include "core/embedded.h"
#include "knowledge/nccl_kb.h"

namespace trainready {

std::vector<std::pair<std::string, std::string>> NcclKnowledgeBase::builtin_files() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [name, text] : embedded_nccl_kb())
    files.emplace_back(std::string(name), std::string(text));
  return files;
}

}  // namespace trainready
