#pragma once
// One factory per rule file; the registry lists them in id order.
#include <memory>

#include "rules/rule.h"

namespace trainready {

std::unique_ptr<Rule> make_cluster_pkey_mismatch();
std::unique_ptr<Rule> make_cluster_placement_mismatch();
std::unique_ptr<Rule> make_cluster_version_mismatch();
std::unique_ptr<Rule> make_cluster_vm_size_mixed();
std::unique_ptr<Rule> make_deploy_gpu_size_without_ib();
std::unique_ptr<Rule> make_deploy_ib_image_no_driver();
std::unique_ptr<Rule> make_deploy_ib_spg_off();
std::unique_ptr<Rule> make_deploy_ib_vms_ungrouped();
std::unique_ptr<Rule> make_deploy_nccl_ib_disabled();
std::unique_ptr<Rule> make_deploy_nodes_split();
std::unique_ptr<Rule> make_deploy_placement_limit();
std::unique_ptr<Rule> make_deploy_vm_size_mixed();
std::unique_ptr<Rule> make_deploy_vnet_rdma_overlap();
std::unique_ptr<Rule> make_fabric_manager_not_ready();
std::unique_ptr<Rule> make_gpu_clocks_throttled();
std::unique_ptr<Rule> make_gpu_count_low();
std::unique_ptr<Rule> make_gpu_memory_errors();
std::unique_ptr<Rule> make_gpu_xid_errors();
std::unique_ptr<Rule> make_gpudirect_rdma_disabled();
std::unique_ptr<Rule> make_ib_driver_not_loaded();
std::unique_ptr<Rule> make_ib_hca_missing();
std::unique_ptr<Rule> make_ib_port_count_low();
std::unique_ptr<Rule> make_ib_port_not_active();
std::unique_ptr<Rule> make_ib_port_rate_low();
std::unique_ptr<Rule> make_ib_write_bw_low();
std::unique_ptr<Rule> make_nccl_collective_timeout();
std::unique_ptr<Rule> make_nccl_connection_failed();
std::unique_ptr<Rule> make_nccl_gdrdma_off();
std::unique_ptr<Rule> make_nccl_host_mismatch();
std::unique_ptr<Rule> make_nccl_ib_completion_error();
std::unique_ptr<Rule> make_nccl_ib_disabled();
std::unique_ptr<Rule> make_nccl_ib_relaxed_ordering_off();
std::unique_ptr<Rule> make_nccl_ibv_modify_qp_failed();
std::unique_ptr<Rule> make_nccl_init_incomplete();
std::unique_ptr<Rule> make_nccl_inter_node_not_ib();
std::unique_ptr<Rule> make_nccl_known_signature();
std::unique_ptr<Rule> make_nccl_log_partial();
std::unique_ptr<Rule> make_nccl_p2p_disabled();
std::unique_ptr<Rule> make_nccl_separate_jobs();
std::unique_ptr<Rule> make_nccl_socket_interface();
std::unique_ptr<Rule> make_nccl_system_error();
std::unique_ptr<Rule> make_nccl_tests_busbw_drop();
std::unique_ptr<Rule> make_nccl_tests_busbw_low();
std::unique_ptr<Rule> make_nccl_tests_ranks_share_gpu();
std::unique_ptr<Rule> make_nccl_tests_wrong_results();
std::unique_ptr<Rule> make_nccl_topo_file_missing();
std::unique_ptr<Rule> make_nccl_topo_file_unset();
std::unique_ptr<Rule> make_nccl_version_mismatch();
std::unique_ptr<Rule> make_nccl_warnings();
std::unique_ptr<Rule> make_nvlink_inactive();
std::unique_ptr<Rule> make_nvme_scratch_not_mounted();
std::unique_ptr<Rule> make_pcie_link_degraded();
std::unique_ptr<Rule> make_plan_does_not_fit();
std::unique_ptr<Rule> make_stage_incomplete();
std::unique_ptr<Rule> make_stage_source_changed();
std::unique_ptr<Rule> make_stage_verify_mismatch();
std::unique_ptr<Rule> make_storage_feed_short();
std::unique_ptr<Rule> make_vm_not_in_scale_set();
std::unique_ptr<Rule> make_vm_size_no_infiniband();

}  // namespace trainready
