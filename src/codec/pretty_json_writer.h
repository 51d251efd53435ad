#pragma once
// nlohmann's pretty printing (dump(2): sorted keys, two spaces, "{}" and "[]" when empty),
// written as it goes instead of from a tree, for the parts of a report that grow with the fleet
// (every node's facts, every rule run). Callers write an object's keys in sorted order; strings
// of plain printable ASCII are copied, anything else goes through nlohmann's own serializer, so
// the text is the same byte for byte (fleet_bench and the codec tests compare the two).
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/fact.h"

namespace trainready {

std::string fact_status_name(FactStatus s);

class PrettyWriter {
 public:
  PrettyWriter(std::string& out, unsigned indent)
      : out_(out),
        s_(nlohmann::detail::output_adapter<char>(out), ' ',
           nlohmann::json::error_handler_t::replace),
        indent_(indent) {}
  void open(char c) {
    out_ += c;
    first_.push_back(true);
    indent_ += 2;
  }
  void close(char c) {
    indent_ -= 2;
    if (!first_.back()) {
      out_ += '\n';
      out_.append(indent_, ' ');
    }
    first_.pop_back();
    out_ += c;
  }
  void element() {
    out_ += first_.back() ? "\n" : ",\n";
    first_.back() = false;
    out_.append(indent_, ' ');
  }
  void key(std::string_view k) {
    element();
    str(k);
    out_ += ": ";
  }
  void str(std::string_view v) {
    for (const char c : v) {
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        s_.dump(nlohmann::json(std::string(v)), true, false, 2, indent_);
        return;
      }
    }
    out_ += '"';
    out_ += v;
    out_ += '"';
  }
  void boolean(bool b) { out_ += b ? "true" : "false"; }
  void integer(long long v) { out_ += std::to_string(v); }
  // Anything else (numbers with a fraction, arrays, objects): nlohmann's own text.
  void any(const nlohmann::json& v) { s_.dump(v, true, false, 2, indent_); }
  template <class T, class F>
  void fact(const Fact<T>& f, F&& write_value) {  // fact_json's keys, in order
    open('{');
    if (!f.ok()) {
      key("reason");
      str(f.reason);
    }
    if (!f.where.source.empty()) {
      key("source");
      str(f.where.str());
    }
    key("status");
    str(fact_status_name(f.status));
    if (f.ok()) {
      key("value");
      write_value(f.value);
    }
    close('}');
  }
  template <class T>
  void plain(const Fact<T>& f) {
    fact(f, [this](const T& v) { any(nlohmann::json(v)); });
  }
  void plain(const Fact<std::string>& f) {
    fact(f, [this](const std::string& v) { str(v); });
  }

 private:
  std::string& out_;
  nlohmann::detail::serializer<nlohmann::json> s_;
  std::vector<bool> first_;
  unsigned indent_;
};

}  // namespace trainready
