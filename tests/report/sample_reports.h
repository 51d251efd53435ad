#pragma once
// Hand-built Reports, one per page kind, for the reporter tests and the headless-browser check.
// Host names, log lines and paths carry hostile text (markup, quotes, terminal escapes), so every
// test that renders them also tests the escaping.
#include <string>
#include <vector>

#include "report/report.h"

namespace trainready::test {

// "<script>alert(1)</script>" and a terminal colour escape: what no page may show raw.
extern const char* const kHostileHost;

Report doctor_report();      // two nodes, an error with evidence, a warning, an info, a skip
Report nccl_tests_report();  // rows 8 B .. 8 GiB, expected busbw known
Report bench_collective_report();
Report bench_storage_feed_report();
Report bench_storage_raw_report();  // raw reads with the accelerators' demand
Report plan_report();
Report lint_report();

struct NamedReport {
  std::string name;
  Report report;
};
std::vector<NamedReport> all_sample_reports();

}  // namespace trainready::test
