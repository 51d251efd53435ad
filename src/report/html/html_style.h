#pragma once
// The page's one stylesheet, inline (the Content-Security-Policy allows inline styles and
// nothing else): light and dark schemes from prefers-color-scheme, and print rules.
namespace trainready {

const char* html_report_css();

}  // namespace trainready
