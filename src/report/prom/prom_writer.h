#pragma once
// The Prometheus text exposition format 0.0.4 (what node_exporter's textfile collector reads):
// one # HELP and # TYPE per family, its samples together, label values escaped, no timestamps
// (the collector refuses them).
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace trainready {

using PromLabels = std::vector<std::pair<std::string, std::string>>;

class PromWriter {
 public:
  // Declares a family; samples added to it later stay grouped under its HELP and TYPE.
  void family(const std::string& name, const std::string& type, const std::string& help);
  // A sample of a declared family. A label set already given is dropped: the format forbids a
  // series twice, and the first value is the one kept.
  // suffix: a summary's "_sum" and "_count" series, which belong to its family.
  void sample(const std::string& name, const PromLabels& labels, double value,
              const std::string& suffix = "");
  std::string str() const;

 private:
  struct Family {
    std::string name, type, help;
    std::vector<std::string> lines;
    std::map<std::string, bool> seen;
  };
  std::vector<Family> families_;
  std::map<std::string, std::size_t> index_;
};

// \ " and newline escaped as the format asks; terminal escapes and control characters dropped.
std::string prom_label_value(const std::string& s);
// Go's float syntax as Prometheus parses it: shortest round-trip, NaN, +Inf, -Inf.
std::string prom_number(double v);

}  // namespace trainready
