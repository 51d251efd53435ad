#pragma once
// The network plugin's /metrics server over GNU libmicrohttpd (metrics_httpd.cpp).
#include <sys/socket.h>

#include <functional>
#include <memory>
#include <string>

#include "plugin/net_layer.h"

namespace trainready {

std::unique_ptr<HttpService> serve_metrics_httpd(const sockaddr_storage& addr,
                                                 const std::string& listen,
                                                 std::function<std::string()> current);

}  // namespace trainready
