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

// What both writers share: a fact as fact_json wrote it ({reason, source, status, value}, the
// keys in sorted order). `W` is the writer (CRTP).
template <class W>
class FactWriter {
 public:
  template <class T, class F>
  void fact(const Fact<T>& f, F&& write_value) {
    W& w = static_cast<W&>(*this);
    w.open('{');
    if (!f.ok()) {
      w.key("reason");
      w.str(f.reason);
    }
    if (!f.where.source.empty()) {
      w.key("source");
      w.str(f.where.str());
    }
    w.key("status");
    w.str(fact_status_name(f.status));
    if (f.ok()) {
      w.key("value");
      write_value(f.value);
    }
    w.close('}');
  }
  template <class T>
  void plain(const Fact<T>& f) {
    fact(f, [this](const T& v) { static_cast<W&>(*this).any(nlohmann::json(v)); });
  }
  void plain(const Fact<std::string>& f) {
    fact(f, [this](const std::string& v) { static_cast<W&>(*this).str(v); });
  }
};

// The text writer. A field list written once as a template over the writer (codec/
// node_facts_json.cpp) gives both the text (PrettyWriter) and the tree (TreeWriter), so the two
// cannot drift apart.
class PrettyWriter : public FactWriter<PrettyWriter> {
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

 private:
  std::string& out_;
  nlohmann::detail::serializer<nlohmann::json> s_;
  std::vector<bool> first_;
  unsigned indent_;
};

// The same calls building an nlohmann tree (to_json and gpu_facts_to_json, for `doctor --json`,
// a snapshot's nvml.json and the tests): each value lands where the last key() or element()
// pointed. Keys may come in any order (the tree sorts them); the text writer needs them sorted.
class TreeWriter : public FactWriter<TreeWriter> {
 public:
  explicit TreeWriter(nlohmann::json& root) : slot_(&root) {}
  void open(char c) {
    *slot_ = c == '{' ? nlohmann::json::object() : nlohmann::json::array();
    stack_.push_back(slot_);
  }
  void close(char) { stack_.pop_back(); }
  void element() {
    nlohmann::json& a = *stack_.back();
    a.push_back(nullptr);
    slot_ = &a.back();
  }
  void key(std::string_view k) { slot_ = &(*stack_.back())[std::string(k)]; }
  void str(std::string_view v) { *slot_ = std::string(v); }
  void boolean(bool b) { *slot_ = b; }
  void integer(long long v) { *slot_ = v; }
  void any(const nlohmann::json& v) { *slot_ = v; }

 private:
  nlohmann::json* slot_;
  std::vector<nlohmann::json*> stack_;  // the open containers, innermost last
};

}  // namespace trainready
