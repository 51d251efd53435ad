// A stand-in for libdcgm.so.4: the DCGM entry points `watch` calls, answering from the JSON file
// named by TRAINREADY_FAKE_DCGM. dcgmConnect_v2 really connects over TCP to the address it is
// given, so "a host engine listens" is something the test arranges (a listener on 127.0.0.1),
// and a refused connection fails as it does with no nv-hostengine running.
//   {"gpus": [{"uuid": "GPU-0", "sm_active_sequence": [0.9, 0.1], "sm_occupancy": 0.4,
//              "tensor_active_sequence": [0.5], "nvlink_tx_bytes_per_s": 1e9,
//              "nvlink_rx_bytes_per_s": 2e9}],
//    "watch_error": -29}
// Sequences advance one value per dcgmGetLatestValues call; a missing value is DCGM's blank.
// Each call is appended to the file named by TRAINREADY_FAKE_DCGM_LOG, so a test can see that
// watch detached (unwatch, field group destroyed, disconnect).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "watch/dcgm_abi.h"

namespace {

namespace d = trainready::dcgm;

nlohmann::json g_doc;
std::vector<unsigned short> g_fields;
bool g_connected = false;
bool g_watching = false;
std::size_t g_calls = 0;

void log(const std::string& what) {
  if (const char* p = std::getenv("TRAINREADY_FAKE_DCGM_LOG")) {
    std::ofstream out(p, std::ios::app);
    out << what << "\n";
  }
}

// A TCP connect with a timeout: true when something accepts on host:port.
bool tcp_reachable(const std::string& address, unsigned timeout_ms) {
  std::string host = address;
  int port = d::kHostEnginePort;
  if (auto c = address.rfind(':'); c != std::string::npos) {
    host = address.substr(0, c);
    port = std::atoi(address.c_str() + c + 1);
  }
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<unsigned short>(port));
  if (::inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) return false;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return false;
  bool ok = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0) {
    ok = true;
  } else if (errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(timeout_ms)) == 1) {
      int err = 0;
      socklen_t len = sizeof err;
      ok = ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
    }
  }
  ::close(fd);
  return ok;
}

const nlohmann::json& at(const nlohmann::json& gpu, const char* key) {
  static const nlohmann::json kNull;
  return gpu.contains(key) ? gpu[key] : kNull;
}

// The value for this call: a sequence's current element, or a fixed number, or none.
bool value_of(const nlohmann::json& gpu, const std::string& key, double& out) {
  const auto& seq = at(gpu, (key + "_sequence").c_str());
  if (seq.is_array() && !seq.empty()) {
    out = seq[g_calls % seq.size()].get<double>();
    return true;
  }
  const auto& fixed = at(gpu, key.c_str());
  if (fixed.is_number()) {
    out = fixed.get<double>();
    return true;
  }
  return false;
}

}  // namespace

extern "C" {

d::Return dcgmInit() {
  const char* path = std::getenv("TRAINREADY_FAKE_DCGM");
  if (path == nullptr) return -3;  // DCGM_ST_GENERIC_ERROR
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  g_doc = nlohmann::json::parse(ss.str(), nullptr, false);
  if (g_doc.is_discarded() || !g_doc.is_object()) return -3;
  log("init");
  return d::kStOk;
}
d::Return dcgmShutdown() {
  log("shutdown");
  return d::kStOk;
}
d::Return dcgmConnect_v2(const char* address, d::ConnectV2Params* p, d::Handle* h) {
  if (address == nullptr || p == nullptr || h == nullptr ||
      p->version != d::kConnectV2ParamsVersion2)
    return -1;                                             // DCGM_ST_BADPARAM
  if (!tcp_reachable(address, p->timeout_ms)) return -21;  // DCGM_ST_CONNECTION_NOT_VALID
  g_connected = true;
  *h = 42;
  log(std::string("connect ") + address);
  return d::kStOk;
}
d::Return dcgmDisconnect(d::Handle h) {
  if (h != 42 || !g_connected) return -1;
  g_connected = false;
  log("disconnect");
  return d::kStOk;
}
d::Return dcgmFieldGroupCreate(d::Handle h, int n, const unsigned short* ids, const char* name,
                               d::FieldGroup* out) {
  if (h != 42 || n < 1 || n > 128 || ids == nullptr || name == nullptr || out == nullptr) return -1;
  g_fields.assign(ids, ids + n);
  *out = 7;
  log(std::string("fieldgroup ") + name);
  return d::kStOk;
}
d::Return dcgmFieldGroupDestroy(d::Handle h, d::FieldGroup g) {
  if (h != 42 || g != 7) return -1;
  log("fieldgroup-destroy");
  return d::kStOk;
}
d::Return dcgmWatchFields(d::Handle h, d::GpuGroup group, d::FieldGroup g, long long freq_us,
                          double, int) {
  if (h != 42 || group != d::kGroupAllGpus || g != 7 || freq_us <= 0) return -1;
  if (g_doc.contains("watch_error")) return g_doc["watch_error"].get<int>();
  g_watching = true;
  log("watch " + std::to_string(freq_us));
  return d::kStOk;
}
d::Return dcgmUnwatchFields(d::Handle h, d::GpuGroup group, d::FieldGroup g) {
  if (h != 42 || group != d::kGroupAllGpus || g != 7) return -1;
  g_watching = false;
  log("unwatch");
  return d::kStOk;
}
d::Return dcgmGetLatestValues(d::Handle h, d::GpuGroup group, d::FieldGroup g,
                              d::FieldValueEnumeration cb, void* user) {
  if (h != 42 || group != d::kGroupAllGpus || g != 7 || cb == nullptr || !g_watching) return -1;
  const auto& gpus = g_doc["gpus"];
  for (unsigned i = 0; gpus.is_array() && i < gpus.size(); ++i) {
    std::vector<d::FieldValueV1> vals(g_fields.size());
    for (std::size_t k = 0; k < g_fields.size(); ++k) {
      d::FieldValueV1& v = vals[k];
      std::memset(&v, 0, sizeof v);
      v.version = d::make_version(sizeof(d::FieldValueV1), 1);
      v.field_id = g_fields[k];
      v.ts = 1;
      double x = 0;
      switch (g_fields[k]) {
        case d::kFiDevUuid: {
          v.field_type = d::kFtString;
          const std::string u = gpus[i].value("uuid", "");
          std::snprintf(v.value.str, sizeof v.value.str, "%s", u.c_str());
          break;
        }
        case d::kFiProfSmActive:
        case d::kFiProfSmOccupancy:
        case d::kFiProfPipeTensorActive: {
          const char* key = g_fields[k] == d::kFiProfSmActive      ? "sm_active"
                            : g_fields[k] == d::kFiProfSmOccupancy ? "sm_occupancy"
                                                                   : "tensor_active";
          v.field_type = d::kFtDouble;
          v.value.dbl = value_of(gpus[i], key, x) ? x : d::kFp64Blank;
          break;
        }
        case d::kFiProfNvLinkTxBytes:
        case d::kFiProfNvLinkRxBytes: {
          const char* key = g_fields[k] == d::kFiProfNvLinkTxBytes ? "nvlink_tx_bytes_per_s"
                                                                   : "nvlink_rx_bytes_per_s";
          v.field_type = d::kFtInt64;
          v.value.i64 = value_of(gpus[i], key, x) ? static_cast<std::int64_t>(x) : d::kInt64Blank;
          break;
        }
        default:
          v.field_type = d::kFtInt64;
          v.status = -6;  // DCGM_ST_NOT_SUPPORTED
      }
    }
    if (cb(i, vals.data(), static_cast<int>(vals.size()), user) != 0) break;
  }
  ++g_calls;
  return d::kStOk;
}
}
