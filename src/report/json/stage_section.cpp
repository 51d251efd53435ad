#include "report/json/stage_section.h"

namespace trainready {
namespace {

nlohmann::json problems(const std::vector<StageProblem>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const StageProblem& p : v)
    a.push_back({{"path", p.path}, {"kind", p.kind}, {"message", p.message}, {"listed", p.listed}});
  return a;
}

}  // namespace

nlohmann::json stage_json(const StageFacts& s) {
  nlohmann::json j{{"mode", s.mode},
                   {"source", s.source},
                   {"destination", s.destination},
                   {"journal", s.journal},
                   {"rank", s.rank},
                   {"ranks", s.ranks},
                   {"replicate", s.replicate},
                   {"host", s.host},
                   {"bytes_from_source", s.bytes_from_source},
                   {"bytes_from_peers", s.bytes_from_peers},
                   {"bytes_received_unneeded", s.bytes_received_unneeded},
                   {"rounds", s.rounds},
                   {"files_listed", s.files_listed},
                   {"bytes_listed", s.bytes_listed},
                   {"files_copied", s.files_copied},
                   {"bytes_copied", s.bytes_copied},
                   {"bytes_read", s.bytes_read},
                   {"files_skipped", s.files_skipped},
                   {"bytes_skipped", s.bytes_skipped},
                   {"chunks_resumed", s.chunks_resumed},
                   {"bytes_resumed", s.bytes_resumed},
                   {"files_md5_checked", s.files_md5_checked},
                   {"files_verified", s.files_verified},
                   {"bytes_verified", s.bytes_verified},
                   {"verify_read_mode", s.verify_read_mode},
                   {"not_regular", s.not_regular},
                   {"changed", problems(s.changed)},
                   {"failed", problems(s.failed)},
                   {"aborted", s.aborted},
                   {"abort_reason", s.abort_reason},
                   {"seconds", s.seconds},
                   {"cpu_seconds", s.cpu_seconds},
                   {"write_mode", s.write_mode},
                   {"time_by_stage_seconds", s.time_by_stage},
                   {"limit", s.limit},
                   {"nic_bytes_per_second", s.nic_bytes_per_s},
                   {"hsm_released", s.hsm_released},
                   {"hsm_restored", s.hsm_restored},
                   {"hsm_batches", s.hsm_batches},
                   {"hsm_still_released", s.hsm_still_released}};
  return j;
}

}  // namespace trainready
