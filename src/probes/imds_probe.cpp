// Azure Instance Metadata Service. Asked only when DMI says Azure or the user names a URL, with
// the Metadata header, a short timeout and no proxy. A snapshot carries the response it got.
#include "core/input_error.h"
#include "parsers/imds.h"
#include "plugin/net_plugin_loader.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {
namespace {

Fact<ImdsInfo> parse_or_unreadable(const std::string& text, const Provenance& where) {
  try {
    return Fact<ImdsInfo>::present(parse_imds(text, where.source), where);
  } catch (const InputError& e) {
    return Fact<ImdsInfo>::unreadable(e.what(), where);
  }
}

}  // namespace

Fact<std::string> fetch_imds(const std::string& url, int timeout_ms) {
  // libcurl lives in the network plugin (plugin/net_layer.h, src/net/imds_get.cpp).
  try {
    return net_layer().fetch_imds(url, timeout_ms);
  } catch (const std::exception& e) {
    return Fact<std::string>::unreadable(std::string("IMDS not asked: ") + e.what(),
                                         Provenance{url, 0});
  }
}

Fact<ImdsInfo> probe_imds(const Root& root, const Fact<DmiInfo>& dmi, const ProbeOptions& opt) {
  if (opt.imds_disabled) return Fact<ImdsInfo>::missing("IMDS disabled by --no-imds");
  if (opt.imds_url) {
    Fact<std::string> body = fetch_imds(*opt.imds_url, opt.imds_timeout_ms);
    if (!body.ok()) return Fact<ImdsInfo>::unreadable(body.reason, body.where);
    return parse_or_unreadable(body.value, body.where);
  }
  if (!root.is_live()) {
    Fact<std::string> text = read_text(root, kSnapImds, kLargeFileLimit);
    if (text.status == FactStatus::kMissing) {
      return Fact<ImdsInfo>::missing(
          "the snapshot has no IMDS response (not an Azure VM, or collected with --no-imds)",
          text.where);
    }
    if (!text.ok()) return Fact<ImdsInfo>::unreadable(text.reason, text.where);
    return parse_or_unreadable(text.value, text.where);
  }
  if (!dmi.ok() || !dmi->azure) {
    return Fact<ImdsInfo>::missing(dmi.ok() ? "not an Azure VM (DMI sys_vendor \"" +
                                                  dmi->sys_vendor + "\")"
                                            : "no DMI to tell the cloud: " + dmi.reason);
  }
  Fact<std::string> body = fetch_imds(kDefaultImdsUrl, opt.imds_timeout_ms);
  if (!body.ok()) return Fact<ImdsInfo>::unreadable(body.reason, body.where);
  return parse_or_unreadable(body.value, body.where);
}

}  // namespace trainready
