#include "rules/registry.h"

#include "rules/health/health_rules.h"
#include "rules/rule_factories.h"

namespace trainready {

const std::vector<std::unique_ptr<Rule>>& all_rules() {
  static const std::vector<std::unique_ptr<Rule>> rules = [] {
    std::vector<std::unique_ptr<Rule>> r;
    // Sorted by id; tests/unit/registry_test.cpp keeps it so.
    r.push_back(make_cluster_node_differs());
    r.push_back(make_cluster_pkey_mismatch());
    r.push_back(make_cluster_placement_mismatch());
    r.push_back(make_cluster_version_mismatch());
    r.push_back(make_cluster_vm_size_mixed());
    r.push_back(make_dcgm_diag_failed());
    r.push_back(make_deploy_amlfs_capacity_invalid());
    r.push_back(make_deploy_gpu_size_without_ib());
    r.push_back(make_deploy_ib_image_no_driver());
    r.push_back(make_deploy_ib_spg_off());
    r.push_back(make_deploy_ib_vms_ungrouped());
    r.push_back(make_deploy_nccl_ib_disabled());
    r.push_back(make_deploy_nodes_split());
    r.push_back(make_deploy_parameter_invalid());
    r.push_back(make_deploy_parameter_placeholder());
    r.push_back(make_deploy_placement_limit());
    r.push_back(make_deploy_vm_size_mixed());
    r.push_back(make_deploy_vnet_rdma_overlap());
    r.push_back(make_fabric_manager_not_ready());
    r.push_back(make_fleet_bandwidth_below_expected());
    r.push_back(make_fleet_facts_unreadable());
    r.push_back(make_fleet_link_bandwidth_low());
    r.push_back(make_fleet_node_bandwidth_low());
    r.push_back(make_fleet_rank_failed());
    r.push_back(make_fleet_rank_silent());
    r.push_back(make_fleet_rank_stalled());
    r.push_back(make_fleet_version_mixed());
    r.push_back(make_framework_backend_not_nccl());
    r.push_back(make_framework_custom_allreduce_failed());
    r.push_back(make_framework_launcher_failed());
    r.push_back(make_framework_nccl_error());
    r.push_back(make_framework_pcie_collective_hang());
    r.push_back(make_framework_rendezvous_failed());
    r.push_back(make_framework_watchdog_hang());
    r.push_back(make_gpu_clocks_throttled());
    r.push_back(make_gpu_count_low());
    r.push_back(make_gpu_memory_errors());
    r.push_back(make_gpu_unreadable());
    r.push_back(make_gpu_xid_errors());
    r.push_back(make_gpudirect_rdma_disabled());
    r.push_back(make_healthagent_disagrees());
    r.push_back(make_ib_char_device_missing());
    r.push_back(make_ib_driver_not_loaded());
    r.push_back(make_ib_hca_missing());
    r.push_back(make_ib_port_count_low());
    r.push_back(make_ib_port_not_active());
    r.push_back(make_ib_port_rate_low());
    r.push_back(make_ib_write_bw_low());
    r.push_back(make_imex_channel_missing());
    r.push_back(make_imex_not_running());
    r.push_back(make_iommu_translated());
    r.push_back(make_mnnvl_fabric_not_ready());
    r.push_back(make_nccl_collective_timeout());
    r.push_back(make_nccl_connection_failed());
    r.push_back(make_nccl_diag_net_bw());
    r.push_back(make_nccl_diag_p2p());
    r.push_back(make_nccl_diag_ras());
    r.push_back(make_nccl_diag_xid());
    r.push_back(make_nccl_gdrdma_off());
    r.push_back(make_nccl_host_mismatch());
    r.push_back(make_nccl_hosts_taken_as_one());
    r.push_back(make_nccl_ib_completion_error());
    r.push_back(make_nccl_ib_disabled());
    r.push_back(make_nccl_ib_mtu_mismatch());
    r.push_back(make_nccl_ib_relaxed_ordering_off());
    r.push_back(make_nccl_ibv_modify_qp_failed());
    r.push_back(make_nccl_init_incomplete());
    r.push_back(make_nccl_inter_node_not_ib());
    r.push_back(make_nccl_known_signature());
    r.push_back(make_nccl_log_partial());
    r.push_back(make_nccl_log_unplaced());
    r.push_back(make_nccl_message());
    r.push_back(make_nccl_p2p_disabled());
    r.push_back(make_nccl_rank_slow());
    r.push_back(make_nccl_ranks_behind());
    r.push_back(make_nccl_ranks_share_gpu());
    r.push_back(make_nccl_roce_link_local_gid());
    r.push_back(make_nccl_separate_jobs());
    r.push_back(make_nccl_socket_interface());
    r.push_back(make_nccl_system_error());
    r.push_back(make_nccl_tests_busbw_drop());
    r.push_back(make_nccl_tests_busbw_low());
    r.push_back(make_nccl_tests_one_rank());
    r.push_back(make_nccl_tests_ranks_share_gpu());
    r.push_back(make_nccl_tests_separate_jobs());
    r.push_back(make_nccl_tests_stopped());
    r.push_back(make_nccl_tests_wrong_results());
    r.push_back(make_nccl_topo_file_missing());
    r.push_back(make_nccl_topo_file_unset());
    r.push_back(make_nccl_topology_file_few_channels());
    r.push_back(make_nccl_version_mismatch());
    r.push_back(make_nccl_warnings());
    r.push_back(make_nhc_check_failed());
    r.push_back(make_nvlink_inactive());
    r.push_back(make_nvme_scratch_not_mounted());
    r.push_back(make_pcie_acs_enabled());
    r.push_back(make_pcie_link_degraded());
    r.push_back(make_plan_assumption_broken());
    r.push_back(make_plan_cluster_misses_plan());
    r.push_back(make_plan_does_not_fit());
    r.push_back(make_process_unkillable());
    r.push_back(make_process_zombies_many());
    r.push_back(make_roce_gid_missing());
    r.push_back(make_roce_link_down());
    r.push_back(make_service_not_running());
    r.push_back(make_slurm_node_unavailable());
    r.push_back(make_stage_incomplete());
    r.push_back(make_stage_source_changed());
    r.push_back(make_stage_source_empty());
    r.push_back(make_stage_verify_mismatch());
    r.push_back(make_storage_feed_short());
    r.push_back(make_vm_not_in_scale_set());
    r.push_back(make_vm_size_no_infiniband());
    r.push_back(make_watch_communication_bound());
    r.push_back(make_watch_compute_bound());
    r.push_back(make_watch_hang());
    r.push_back(make_watch_idle());
    r.push_back(make_watch_input_cpu());
    r.push_back(make_watch_input_storage());
    r.push_back(make_watch_no_counters());
    r.push_back(make_watch_straggler());
    return r;
  }();
  return rules;
}

const Rule* find_rule(std::string_view id) {
  for (const auto& r : all_rules()) {
    if (r->id() == id) return r.get();
  }
  return find_health_rule(id);  // judged only by `trainready health`
}

}  // namespace trainready
