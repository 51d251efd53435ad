#include "report/watch/watch_prom.h"

#include "report/prom/prom_writer.h"
#include "watch/counter_delta.h"

namespace trainready::watch {

std::string watch_prometheus_text(const Sample& s, const Summary& summary, const PromContext& c) {
  PromWriter w;
  w.family(
      "trainready_job_info", "gauge",
      "Labels of the job watched (join on instance instead of repeating them on every series)");
  PromLabels job = c.job_labels;
  std::string pids;
  for (int p : s.watched_pids) pids += (pids.empty() ? "" : ",") + std::to_string(p);
  if (!pids.empty()) job.emplace_back("pids", pids);
  w.sample("trainready_job_info", job, 1);

  w.family("trainready_source_available", "gauge",
           "1 when watch could read the source, 0 when it could not (its series are then absent, "
           "never 0)");
  const std::pair<const char*, const std::string*> sources[] = {
      {"gpu", &s.gpu_unavailable},      {"infiniband", &s.ib_unavailable},
      {"network", &s.net_unavailable},  {"disk", &s.disk_unavailable},
      {"nfs", &s.nfs_unavailable},      {"fuse", &s.fuse_unavailable},
      {"process", &s.proc_unavailable}, {"lustre", &s.lustre_unavailable}};
  for (const auto& [name, why] : sources)
    w.sample("trainready_source_available", {{"source", name}}, why->empty() ? 1 : 0);
  // Profiling (DCGM or GPM) only means something where NVML found GPUs.
  if (s.gpu_unavailable.empty())
    w.sample("trainready_source_available", {{"source", "gpu_profiling"}},
             s.gpu_profiling_source.empty() ? 0 : 1);

  w.family("trainready_gpu_utilization_ratio", "gauge",
           "Share of the last NVML sample period a kernel ran (DCGM_FI_DEV_GPU_UTIL / 100)");
  w.family("trainready_gpu_memory_copy_utilization_ratio", "gauge",
           "Memory controller busy share (DCGM_FI_DEV_MEM_COPY_UTIL / 100)");
  w.family("trainready_gpu_sm_clock_hertz", "gauge", "SM clock (DCGM_FI_DEV_SM_CLOCK, in Hz)");
  w.family("trainready_gpu_power_watts", "gauge", "Board power (DCGM_FI_DEV_POWER_USAGE)");
  w.family("trainready_gpu_memory_used_bytes", "gauge",
           "Frame buffer used (DCGM_FI_DEV_FB_USED, in bytes)");
  w.family("trainready_gpu_clocks_event_reasons", "gauge",
           "Clock event (throttle) reason bitmask (DCGM_FI_DEV_CLOCK_THROTTLE_REASONS)");
  w.family("trainready_gpu_pcie_transmit_bytes_per_second", "gauge",
           "PCIe transmit throughput, NVML's 20 ms window");
  w.family("trainready_gpu_pcie_receive_bytes_per_second", "gauge",
           "PCIe receive throughput, NVML's 20 ms window");
  w.family("trainready_gpu_sm_active_ratio", "gauge",
           "Share of cycles an SM had at least one warp assigned, mean over SMs "
           "(DCGM_FI_PROF_SM_ACTIVE; NVML GPM SM_UTIL / 100 without DCGM)");
  w.family("trainready_gpu_sm_occupancy_ratio", "gauge",
           "Resident warps over the SMs' maximum (DCGM_FI_PROF_SM_OCCUPANCY; GPM SM_OCCUPANCY)");
  w.family("trainready_gpu_tensor_active_ratio", "gauge",
           "Share of cycles any tensor pipe was active (DCGM_FI_PROF_PIPE_TENSOR_ACTIVE; GPM "
           "ANY_TENSOR_UTIL / 100)");
  w.family("trainready_gpu_nvlink_transmit_bytes_per_second", "gauge",
           "NVLink bytes sent per second, all links (DCGM_FI_PROF_NVLINK_TX_BYTES; else the NVML "
           "counter's change since the previous sample)");
  w.family("trainready_gpu_nvlink_receive_bytes_per_second", "gauge",
           "NVLink bytes received per second, all links (DCGM_FI_PROF_NVLINK_RX_BYTES)");
  w.family("trainready_gpu_nvlink_transmitted_bytes_total", "counter",
           "NVLink data bytes sent, all links (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX x 1024)");
  w.family("trainready_gpu_nvlink_received_bytes_total", "counter",
           "NVLink data bytes received, all links (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX x 1024)");
  for (const GpuSample& g : s.gpus) {
    const PromLabels l = {
        {"gpu", std::to_string(g.index)}, {"uuid", g.uuid}, {"model_name", g.name}};
    if (g.util_percent) w.sample("trainready_gpu_utilization_ratio", l, *g.util_percent / 100);
    if (g.mem_util_percent)
      w.sample("trainready_gpu_memory_copy_utilization_ratio", l, *g.mem_util_percent / 100);
    if (g.sm_clock_mhz) w.sample("trainready_gpu_sm_clock_hertz", l, *g.sm_clock_mhz * 1e6);
    if (g.power_watts) w.sample("trainready_gpu_power_watts", l, *g.power_watts);
    if (g.mem_used_bytes)
      w.sample("trainready_gpu_memory_used_bytes", l, static_cast<double>(*g.mem_used_bytes));
    if (g.clocks_event_reasons)
      w.sample("trainready_gpu_clocks_event_reasons", l,
               static_cast<double>(*g.clocks_event_reasons));
    if (g.pcie_tx_bytes_per_s)
      w.sample("trainready_gpu_pcie_transmit_bytes_per_second", l, *g.pcie_tx_bytes_per_s);
    if (g.pcie_rx_bytes_per_s)
      w.sample("trainready_gpu_pcie_receive_bytes_per_second", l, *g.pcie_rx_bytes_per_s);
    if (g.sm_active_ratio) w.sample("trainready_gpu_sm_active_ratio", l, *g.sm_active_ratio);
    if (g.sm_occupancy_ratio)
      w.sample("trainready_gpu_sm_occupancy_ratio", l, *g.sm_occupancy_ratio);
    if (g.tensor_active_ratio)
      w.sample("trainready_gpu_tensor_active_ratio", l, *g.tensor_active_ratio);
    if (g.nvlink_tx_bytes_per_s)
      w.sample("trainready_gpu_nvlink_transmit_bytes_per_second", l, *g.nvlink_tx_bytes_per_s);
    if (g.nvlink_rx_bytes_per_s)
      w.sample("trainready_gpu_nvlink_receive_bytes_per_second", l, *g.nvlink_rx_bytes_per_s);
    if (g.nvlink_tx_kib)
      w.sample("trainready_gpu_nvlink_transmitted_bytes_total", l,
               static_cast<double>(*g.nvlink_tx_kib) * 1024);
    if (g.nvlink_rx_kib)
      w.sample("trainready_gpu_nvlink_received_bytes_total", l,
               static_cast<double>(*g.nvlink_rx_kib) * 1024);
  }

  w.family("trainready_infiniband_port_data_received_bytes_total", "counter",
           "Bytes received on the port: port_rcv_data x 4 (node_infiniband_port_data_received_"
           "bytes_total)");
  w.family("trainready_infiniband_port_data_transmitted_bytes_total", "counter",
           "Bytes transmitted on the port: port_xmit_data x 4 (node_infiniband_port_data_"
           "transmitted_bytes_total)");
  w.family("trainready_infiniband_port_transmit_wait_total", "counter",
           "Ticks the port had data but no credits to send (port_xmit_wait)");
  w.family("trainready_infiniband_rate_bytes_per_second", "gauge",
           "Port line rate (node_infiniband_rate_bytes_per_second)");
  for (const IbPortSample& p : s.ib) {
    const PromLabels l = {{"device", p.device}, {"port", std::to_string(p.port)}};
    if (p.rcv_data)
      w.sample("trainready_infiniband_port_data_received_bytes_total", l,
               static_cast<double>(*p.rcv_data) * static_cast<double>(kIbDataUnitBytes));
    if (p.xmit_data)
      w.sample("trainready_infiniband_port_data_transmitted_bytes_total", l,
               static_cast<double>(*p.xmit_data) * static_cast<double>(kIbDataUnitBytes));
    if (p.xmit_wait)
      w.sample("trainready_infiniband_port_transmit_wait_total", l,
               static_cast<double>(*p.xmit_wait));
    if (p.rate_gbps)
      w.sample("trainready_infiniband_rate_bytes_per_second", l, *p.rate_gbps * 1e9 / 8);
  }

  w.family("trainready_network_receive_bytes_total", "counter",
           "Bytes received (node_network_receive_bytes_total)");
  w.family("trainready_network_transmit_bytes_total", "counter",
           "Bytes transmitted (node_network_transmit_bytes_total)");
  for (const NetSample& n : s.net) {
    const PromLabels l = {{"device", n.name}};
    if (n.rx_bytes)
      w.sample("trainready_network_receive_bytes_total", l, static_cast<double>(*n.rx_bytes));
    if (n.tx_bytes)
      w.sample("trainready_network_transmit_bytes_total", l, static_cast<double>(*n.tx_bytes));
  }
  w.family("trainready_disk_read_bytes_total", "counter",
           "Bytes read, sectors x 512 (node_disk_read_bytes_total); top-level devices only");
  w.family("trainready_disk_written_bytes_total", "counter",
           "Bytes written, sectors x 512 (node_disk_written_bytes_total)");
  for (const DiskSample& d : s.disks) {
    const PromLabels l = {{"device", d.name}};
    if (d.sectors_read)
      w.sample("trainready_disk_read_bytes_total", l, static_cast<double>(*d.sectors_read) * 512);
    if (d.sectors_written)
      w.sample("trainready_disk_written_bytes_total", l,
               static_cast<double>(*d.sectors_written) * 512);
  }
  w.family("trainready_nfs_server_read_bytes_total", "counter",
           "Bytes read from the NFS server (/proc/self/mountstats serverreadbytes)");
  for (const NfsSample& m : s.nfs) {
    if (m.server_read_bytes)
      w.sample("trainready_nfs_server_read_bytes_total",
               {{"mountpoint", m.mountpoint}, {"export", m.device}},
               static_cast<double>(*m.server_read_bytes));
  }
  // No node_exporter collector reads Lustre; the names follow HewlettPackard/lustre_exporter's
  // client metrics (lustre_read_bytes_total, lustre_write_bytes_total from llite stats).
  w.family("trainready_lustre_read_bytes_total", "counter",
           "Bytes applications read from the Lustre file system, cache hits included (llite "
           "stats read_bytes sum)");
  w.family("trainready_lustre_write_bytes_total", "counter",
           "Bytes applications wrote to the Lustre file system (llite stats write_bytes sum)");
  w.family("trainready_lustre_osc_read_bytes_total", "counter",
           "Bytes read from the object servers in bulk RPCs, summed over OSTs (osc stats)");
  w.family("trainready_lustre_osc_write_bytes_total", "counter",
           "Bytes written to the object servers in bulk RPCs, summed over OSTs (osc stats)");
  for (const LustreSample& m : s.lustre) {
    const PromLabels l = {{"fsname", m.fsname}, {"instance_name", m.instance}};
    if (m.read_bytes)
      w.sample("trainready_lustre_read_bytes_total", l, static_cast<double>(*m.read_bytes));
    if (m.write_bytes)
      w.sample("trainready_lustre_write_bytes_total", l, static_cast<double>(*m.write_bytes));
    if (m.osc_read_bytes)
      w.sample("trainready_lustre_osc_read_bytes_total", l, static_cast<double>(*m.osc_read_bytes));
    if (m.osc_write_bytes)
      w.sample("trainready_lustre_osc_write_bytes_total", l,
               static_cast<double>(*m.osc_write_bytes));
  }
  w.family("trainready_fuse_waiting_requests", "gauge",
           "Requests waiting for the fuse daemon (/sys/fs/fuse/connections/N/waiting)");
  for (const FuseSample& f : s.fuse) {
    if (f.waiting)
      w.sample("trainready_fuse_waiting_requests",
               {{"mountpoint", f.mountpoint}, {"fstype", f.fstype}},
               static_cast<double>(*f.waiting));
  }

  w.family("trainready_process_cpu_seconds_total", "counter",
           "CPU time of the watched processes (utime + stime)");
  w.family("trainready_process_read_bytes_total", "counter",
           "Bytes the watched processes read from the block layer (/proc/PID/io read_bytes)");
  w.family("trainready_process_runqueue_wait_seconds_total", "counter",
           "Time the watched processes' threads waited for a CPU (schedstat)");
  for (const ProcSample& p : s.procs) {
    const PromLabels l = {{"pid", std::to_string(p.pid)}, {"comm", p.comm}};
    if (p.cpu_ticks)
      w.sample("trainready_process_cpu_seconds_total", l,
               static_cast<double>(*p.cpu_ticks) / s.clock_ticks_per_s);
    if (p.read_bytes)
      w.sample("trainready_process_read_bytes_total", l, static_cast<double>(*p.read_bytes));
    if (p.wait_ns)
      w.sample("trainready_process_runqueue_wait_seconds_total", l,
               static_cast<double>(*p.wait_ns) / 1e9);
  }

  w.family("trainready_interval_label", "gauge",
           "1 for the label of the latest interval (trainready watch --explain), 0 for the others");
  if (c.last != nullptr) {
    for (Label l : kAllLabels)
      w.sample("trainready_interval_label", {{"label", label_id(l)}}, c.last->label == l ? 1 : 0);
  }
  w.family("trainready_label_seconds_total", "counter",
           "Wall time of the intervals given each label since watch started");
  w.family("trainready_gpu_idle_seconds_total", "counter",
           "GPU idle time (1 - utilization) put on each label since watch started");
  for (Label l : kAllLabels) {
    w.sample("trainready_label_seconds_total", {{"label", label_id(l)}}, summary.total(l).seconds);
    if (summary.has_gpus())
      w.sample("trainready_gpu_idle_seconds_total", {{"label", label_id(l)}},
               summary.total(l).gpu_idle_seconds);
  }
  return w.str();
}

}  // namespace trainready::watch
