#pragma once
// JUnit XML, as Jenkins (junit plugin) and GitLab (artifacts:reports:junit) read it: every rule
// evaluation is a test case, so a CI run shows which checks ran, failed or were skipped.
#include <string>

#include "report/report.h"

namespace trainready {

// One <testsuites> with one <testsuite name="trainready <command>">; per run (for_each_run) a
// <testcase classname="<node or scope>" name="<rule-id>[ on <node>]"> that holds <failure> when
// the rule found something at or above --fail-on, <skipped> when its facts were missing (or its
// findings suppressed), and nothing when it passed. docs/output-formats.md has the mapping.
std::string render_junit(const Report& r);

}  // namespace trainready
