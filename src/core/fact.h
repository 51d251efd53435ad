#pragma once
// A fact is a value with provenance, or an explicit "missing (why)" / "unreadable (why)".
// A missing fact is never a pass: rules that need it report themselves as skipped.
#include <string>
#include <utility>

#include "core/source_text.h"

namespace trainready {

struct Provenance {
  SourceText source;  // a path as the user knows it ("/sys/...", "snap/sys/...", "ibstat.txt")
  int line = 0;       // 1-based line in source, 0 when the whole file is the evidence
  std::string str() const { return line > 0 ? source + ":" + std::to_string(line) : source.str(); }
};

enum class FactStatus { kPresent, kMissing, kUnreadable };

template <class T>
struct Fact {
  FactStatus status = FactStatus::kMissing;
  T value{};
  std::string reason = "not collected";  // why it is missing or unreadable
  Provenance where;

  static Fact present(T v, const Provenance& p = {}) {
    Fact f;
    f.status = FactStatus::kPresent;
    f.value = std::move(v);
    f.reason.clear();
    f.where = p;
    return f;
  }
  static Fact missing(const std::string& why, const Provenance& p = {}) {
    Fact f;
    f.status = FactStatus::kMissing;
    f.reason = why;
    f.where = p;
    return f;
  }
  static Fact unreadable(const std::string& why, const Provenance& p = {}) {
    Fact f;
    f.status = FactStatus::kUnreadable;
    f.reason = why;
    f.where = p;
    return f;
  }
  bool ok() const { return status == FactStatus::kPresent; }
  const T& operator*() const { return value; }
  const T* operator->() const { return &value; }
  // "missing: why" / "unreadable: why (where)" for skip reasons and reports.
  std::string describe() const {
    if (ok()) return "present";
    std::string s = status == FactStatus::kMissing ? "missing: " : "unreadable: ";
    s += reason;
    if (!where.source.empty()) s += " (" + where.str() + ")";
    return s;
  }
};

}  // namespace trainready
