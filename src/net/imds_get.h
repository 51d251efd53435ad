#pragma once
// The network plugin's IMDS request over libcurl (imds_get.cpp).
#include <string>

#include "core/fact.h"

namespace trainready {

Fact<std::string> imds_get(const std::string& url, int timeout_ms);

}  // namespace trainready
