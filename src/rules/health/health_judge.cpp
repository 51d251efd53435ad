#include "rules/health/health_judge.h"
#include "core/utc_time.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>

#include "catalog/xid_catalog.h"
#include "core/units.h"
#include "rules/node/xid_judgement.h"

namespace trainready {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.2f" : "%.0f", v);
  return buf;
}

std::string per_word(CounterPer p) {
  switch (p) {
    case CounterPer::kSecond:
      return "/s";
    case CounterPer::kMinute:
      return "/min";
    case CounterPer::kHour:
      return "/hour";
    case CounterPer::kAnyIncrease:
      return " (any increase)";
  }
  return "";
}

std::string fix_for(RepairAction a, const std::string& ghr) {
  switch (a) {
    case RepairAction::kIgnore:
      return "Nothing to do now; `trainready health` keeps watching it.";
    case RepairAction::kRestartJob:
      return "Restart the job; the node stays in service.";
    case RepairAction::kResetGpu:
      return "Drain the node, reset the GPU (`nvidia-smi -r -i <index>` with no process on it; "
             "on NVSwitch sizes stop nvidia-fabricmanager first) or reboot, then resume it.";
    case RepairAction::kReboot:
      return "Drain the node, collect the evidence (`trainready collect`, "
             "`nvidia-bug-report.sh`), then reboot it (or file GHR Resource.Hpc.Reboot).";
    case RepairAction::kRedeploy:
      return "Drain the node, collect the evidence, then deallocate and start the VM so it "
             "moves to other hardware.";
    case RepairAction::kReportAzure:
      return "Azure's order: drain the node, collect the evidence (`trainready collect`, "
             "`nvidia-bug-report.sh`), file a Guest Health Report with impact category " +
             ghr +
             " (`trainready health` prints the request body), then reboot or deallocate. "
             "Rebooting first can lose what the report needs.";
  }
  return "";
}

void finish(HealthVerdict& v) { v.fix = fix_for(v.action, v.ghr_category); }

}  // namespace

std::string repair_fix(RepairAction a, const std::string& ghr) { return fix_for(a, ghr); }

namespace {

std::string port_where(const PortHistory& h) { return h.where; }

void ports(const HealthFacts& f, std::string_view id, std::vector<HealthVerdict>& out) {
  const HealthState& s = f.state;
  for (const auto& [key, h] : s.ports) {
    HealthVerdict v;
    v.rule_id = std::string(id);
    v.subject = key;
    const std::string since = h.condition_since != 0 ? " since " + utc_text(h.condition_since) : "";
    v.evidence.push_back({"state " + h.state + (h.phys_state.empty() ? "" : ", " + h.phys_state) +
                              "; down->up cycles after a persistent down in the last " +
                              format_duration(static_cast<double>(kFlapWindowSeconds)) + ": " +
                              std::to_string(h.flaps.size()),
                          {port_where(h), 0}});
    if (auto it = h.counters.find("link_downed"); it != h.counters.end())
      v.evidence.push_back({"link_downed " + std::to_string(it->second.last),
                            {port_where(h) + "/counters/link_downed", 0}});
    if (id == "health-ib-port-flapping") {
      if (h.condition != PortCondition::kFlapping) continue;
      v.severity = Severity::kError;
      v.action = RepairAction::kReportAzure;
      v.ghr_category = "Resource.Hpc.Unhealthy.IBPortFlapping";
      v.message = key + " is flapping: it went down and came back " + std::to_string(kFlapCycles) +
                  " times or more" + since + "; sticky until `trainready health --clear " + key +
                  "`";
      v.cause = "GPUd's flap rule (store/scan_flaps.go): a port down in two samples at least " +
                std::to_string(kFlapDownPersistSeconds) + " s apart that comes back to ACTIVE, " +
                std::to_string(kFlapCycles) + " times within " +
                format_duration(static_cast<double>(kFlapWindowSeconds)) +
                ". A flapping link aborts NCCL jobs and usually is a cable, transceiver or "
                "switch port; Azure's category for it is IBPortFlapping (" +
                std::string(kGhrCategoriesSource) + ").";
    } else if (id == "health-ib-port-down") {
      if (h.condition == PortCondition::kDropped) {
        v.severity = Severity::kError;
        v.action = RepairAction::kReportAzure;
        v.ghr_category = "Resource.Hpc.Unhealthy.IBPortDown";
        v.message = key + " dropped: down " + format_duration(static_cast<double>(kDropSeconds)) +
                    " or more with link_downed unchanged" + since +
                    (h.state == "ACTIVE" ? "; ACTIVE again, but sticky until `trainready health "
                                           "--clear " +
                                               key + "`"
                                         : "");
        v.cause = "GPUd's drop rule (store/scan_drops.go): down for " +
                  format_duration(static_cast<double>(kDropSeconds)) +
                  " or more with an unchanged link_downed counter (the link did not try to come "
                  "back). Azure's category: IBPortDown (" +
                  std::string(kGhrCategoriesSource) + ").";
      } else if (h.condition == PortCondition::kDown) {
        v.severity = Severity::kWarning;
        v.action = RepairAction::kIgnore;
        v.message = key + " is " + h.state + since + ", not yet " +
                    format_duration(static_cast<double>(kDropSeconds)) + " (a drop)";
        v.cause =
            "A port down for less than GPUd's drop time may come back by itself (a switch "
            "reboot, a subnet manager sweep); the next samples decide.";
      } else if (h.condition == PortCondition::kRecovered) {
        v.severity = Severity::kInfo;
        v.action = RepairAction::kIgnore;
        v.message = key + " recovered: ACTIVE again" + since + ", " +
                    std::to_string(h.flaps.size()) + " of " + std::to_string(kFlapCycles) +
                    " down->up cycles for a flap";
        v.cause = "The port came back before GPUd's drop time; more cycles within " +
                  format_duration(static_cast<double>(kFlapWindowSeconds)) + " make it a flap.";
      } else {
        continue;
      }
    } else {
      continue;
    }
    finish(v);
    out.push_back(std::move(v));
  }
}

void counters(const HealthFacts& f, std::string_view id, std::vector<HealthVerdict>& out) {
  for (const auto& [key, h] : f.state.ports) {
    for (const CounterLimit& lim : kCounterLimits) {
      auto it = h.counters.find(std::string(lim.counter));
      if (it == h.counters.end()) continue;
      const CounterHistory& c = it->second;
      double rate = 0;
      std::string over;
      switch (lim.per) {
        case CounterPer::kSecond:
          if (c.interval_s <= 0) continue;
          rate = static_cast<double>(c.delta) / static_cast<double>(c.interval_s);
          over = "over the last " + format_duration(static_cast<double>(c.interval_s));
          break;
        case CounterPer::kMinute:
          if (c.interval_s <= 0) continue;
          rate = static_cast<double>(c.delta) * 60.0 / static_cast<double>(c.interval_s);
          over = "over the last " + format_duration(static_cast<double>(c.interval_s));
          break;
        case CounterPer::kHour:
          if (c.hour_span_s <= 0) continue;
          rate = static_cast<double>(c.hour_increase);
          over = "in the last " + format_duration(static_cast<double>(c.hour_span_s));
          break;
        case CounterPer::kAnyIncrease:
          rate = static_cast<double>(c.delta);
          over = "since the sample before";
          break;
      }
      if (!(rate > lim.limit)) continue;
      HealthVerdict v;
      v.rule_id = std::string(id);
      v.subject = key + " " + std::string(lim.counter);
      const bool fatal = lim.level == CounterLevel::kFatal;
      v.severity = fatal ? Severity::kError : Severity::kWarning;
      v.action = fatal ? RepairAction::kReportAzure : RepairAction::kIgnore;
      if (fatal) v.ghr_category = "Resource.Hpc.Unhealthy.IBPerformance";
      const std::string unit = lim.per == CounterPer::kAnyIncrease ? "" : per_word(lim.per);
      v.message =
          key + " " + std::string(lim.counter) + " " +
          (lim.per == CounterPer::kAnyIncrease || lim.per == CounterPer::kHour ? "+" + num(rate)
                                                                               : num(rate) + unit) +
          " " + over + " (" + (fatal ? "fatal" : "degraded") + " above " + num(lim.limit) +
          per_word(lim.per) + ")";
      v.evidence.push_back({std::string(lim.counter) + " " + std::to_string(c.last) + " (+" +
                                std::to_string(c.delta) + " in " + std::to_string(c.interval_s) +
                                " s, +" + std::to_string(c.hour_increase) + " in " +
                                std::to_string(c.hour_span_s) + " s)",
                            {h.where + "/counters/" + std::string(lim.counter), 0}});
      v.cause = "Limit from " + std::string(lim.source) +
                (fatal ? ". A fatal level means the link is out of spec (symbol errors past the "
                         "IBTA bit-error-rate limit, buffer overruns, link integrity errors): "
                         "Azure's category is IBPerformance (" +
                             std::string(kGhrCategoriesSource) + ")."
                       : ". A degraded level slows collectives without failing them; repeated, "
                         "it precedes a fatal one.");
      finish(v);
      out.push_back(std::move(v));
    }
  }
}

RepairAction action_of_bucket(std::string_view b) {
  if (b == "IGNORE" || b == "WORKFLOW_XID_45" || b == "XID_154") return RepairAction::kIgnore;
  if (b == "RESET_GPU" || b == "WORKFLOW_XID_48" || b.rfind("WORKFLOW_NVLINK", 0) == 0)
    return RepairAction::kResetGpu;
  if (b == "RESTART_BM") return RepairAction::kReboot;
  if (b == "RESTART_VM") return RepairAction::kRedeploy;
  if (b == "CONTACT_SUPPORT" || b == "CHECK_MECHANICALS") return RepairAction::kReportAzure;
  return RepairAction::kRestartJob;  // RESTART_APP, UPDATE_SWFW, CHECK_UVM, none yet
}

// Microsoft's categories name four Xids; every other one is GpuXIDError.
std::string ghr_of_xid(int code) {
  switch (code) {
    case 48:
      return "Resource.Hpc.Unhealthy.XID48DoubleBitECC";
    case 79:
      return "Resource.Hpc.Unhealthy.XID79FallenOffBus";
    case 94:
      return "Resource.Hpc.Unhealthy.XID94ContainedECCError";
    case 95:
      return "Resource.Hpc.Unhealthy.XID95UncontainedECCError";
    default:
      return "Resource.Hpc.Unhealthy.GpuXIDError";
  }
}

void xids(const HealthFacts& f, std::string_view id, std::vector<HealthVerdict>& out) {
  const HealthState& s = f.state;
  struct Group {
    std::set<std::int64_t> boots;
    int current = 0;  // this boot, within the window
    int total = 0;
    const XidRecord* last = nullptr;
  };
  std::map<std::pair<std::string, int>, Group> groups;
  for (const XidRecord& r : s.xids) {
    Group& g = groups[{r.pci, r.code}];
    g.boots.insert(r.boot);
    ++g.total;
    if (r.boot != 0 && r.boot == s.boot_time &&
        static_cast<double>(s.updated_at - r.time) <= f.xid_window_s)
      ++g.current;
    if (!g.last || r.time >= g.last->time) g.last = &r;
  }
  for (const auto& [k, g] : groups) {
    const auto& [pci, code] = k;
    const std::optional<XidInfo> info = xid_info(code);
    const bool repeated = static_cast<int>(g.boots.size()) >= kXidBootsToEscalate;
    if (g.current == 0 && !repeated) continue;  // gpu-xid-errors reports older ones
    HealthVerdict v;
    v.rule_id = std::string(id);
    v.subject = "GPU " + pci;
    const RepairAction by_bucket =
        info ? action_of_bucket(info->immediate) : RepairAction::kRestartJob;
    v.severity = xid_severity(code);
    v.action = by_bucket;
    const std::string what = "Xid " + std::to_string(code) + " (" +
                             (info ? std::string(info->description) : std::string("unknown code")) +
                             ")";
    if (repeated && by_bucket >= RepairAction::kResetGpu) {
      v.severity = Severity::kError;
      v.action = RepairAction::kReportAzure;
      v.message = what + " on GPU " + pci + " again after a reboot: seen in " +
                  std::to_string(g.boots.size()) + " boots, " + std::to_string(g.total) +
                  " times in " + format_duration(static_cast<double>(kXidRetentionSeconds));
      v.cause =
          "A reset or reboot did not clear it: GPUd escalates a REBOOT_SYSTEM Xid to "
          "HARDWARE_INSPECTION once it recurs past its reboot threshold "
          "(components/accelerator/nvidia/xid, DefaultRebootThreshold 2); trainready "
          "escalates at " +
          std::to_string(kXidBootsToEscalate) + " boots. NVIDIA's catalog bucket: " +
          (info ? std::string(info->immediate) : std::string("none")) + " (" +
          std::string(kXidCatalogSource) + ").";
    } else if (g.current == 0) {
      continue;  // repeated but harmless (IGNORE, RESTART_APP): nothing beyond gpu-xid-errors
    } else {
      v.message = what + " on GPU " + pci + ": " + std::to_string(g.current) + " time" +
                  (g.current == 1 ? "" : "s") + " in this boot within " +
                  format_duration(f.xid_window_s);
      v.cause = "NVIDIA's Xid catalog gives the immediate action " +
                (info ? std::string(info->immediate) : std::string("(none listed)")) + " (" +
                std::string(kXidCatalogSource) +
                "); identical lines read again are counted "
                "once.";
    }
    if (v.action == RepairAction::kReportAzure) v.ghr_category = ghr_of_xid(code);
    if (g.last)
      v.evidence.push_back(
          {"Xid " + std::to_string(code) + " " + pci + ": \"" + g.last->line + "\"",
           {g.last->where, 0}});
    finish(v);
    out.push_back(std::move(v));
  }
}

// NVIDIA, "GPU Memory Error Management" (docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt): a
// pending remap takes effect at the next GPU reset; a remapping failure means the GPU has no
// spare row left and needs service. Microsoft's category for it: HpcRowRemapFailure.
void gpus(const HealthFacts& f, std::string_view id, std::vector<HealthVerdict>& out) {
  for (const auto& [bus, g] : f.state.gpus) {
    HealthVerdict v;
    v.rule_id = std::string(id);
    v.subject = g.name;
    const bool stuck = static_cast<int>(g.pending_boots.size()) >= kXidBootsToEscalate;
    if (g.remap_failure || stuck) {
      v.severity = Severity::kError;
      v.action = RepairAction::kReportAzure;
      v.ghr_category = "Resource.Hpc.Unhealthy.HpcRowRemapFailure";
      v.message = g.remap_failure ? g.name + ": row remapping failed since " + utc_text(g.since) +
                                        "; sticky until `trainready health --clear gpus`"
                                  : g.name + ": a row remap is still pending after a reboot (" +
                                        std::to_string(g.pending_boots.size()) + " boots)";
      v.cause =
          "NVIDIA's GPU memory error management: a failed remap leaves no spare row for "
          "failing HBM, and a remap that a reboot did not apply will not be applied; the "
          "GPU needs service. Azure's category: HpcRowRemapFailure (" +
          std::string(kGhrCategoriesSource) + ").";
    } else if (g.remap_pending) {
      v.severity = Severity::kError;
      v.action = RepairAction::kResetGpu;
      v.message = g.name + ": a row remap is pending a GPU reset since " + utc_text(g.since);
      v.cause =
          "NVIDIA's GPU memory error management: a remap marked for a failing row takes "
          "effect only at the next GPU reset; until then the row is still in use.";
    } else {
      continue;
    }
    v.evidence.push_back(
        {g.name + ": remap_pending " + (g.remap_pending ? "yes" : "no") + ", remap_failure " +
             (g.remap_failure ? "yes" : "no"),
         {"NVML nvmlDeviceGetRemappedRows (a snapshot: trainready/nvml.json)", 0}});
    finish(v);
    out.push_back(std::move(v));
  }
}

}  // namespace

std::string_view to_string(RepairAction a) {
  switch (a) {
    case RepairAction::kIgnore:
      return "ignore";
    case RepairAction::kRestartJob:
      return "restart-job";
    case RepairAction::kResetGpu:
      return "reset-gpu";
    case RepairAction::kReboot:
      return "reboot";
    case RepairAction::kRedeploy:
      return "redeploy";
    case RepairAction::kReportAzure:
      return "report-azure";
  }
  return "ignore";
}

std::vector<HealthVerdict> health_verdicts(const HealthFacts& f, std::string_view rule_id) {
  std::vector<HealthVerdict> out;
  if (rule_id == "health-ib-port-flapping" || rule_id == "health-ib-port-down")
    ports(f, rule_id, out);
  else if (rule_id == "health-ib-counter-errors")
    counters(f, rule_id, out);
  else if (rule_id == "health-gpu-xid")
    xids(f, rule_id, out);
  else if (rule_id == "health-gpu-row-remap")
    gpus(f, rule_id, out);
  else
    health_gpu_verdicts(f, rule_id, out);
  return out;
}

}  // namespace trainready
