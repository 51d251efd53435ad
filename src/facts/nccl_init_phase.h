// Which of NCCL's INFO lines belong to a phase of communicator init, for the parser (a stream
// that printed one has begun init) and for the rules that read where a stuck rank stopped.
#pragma once

#include <string_view>

namespace trainready {

// The NVLS (NVLink SHARP) group and buffer setup of init, transport/nvls.cc 2.17 .. 2.30:
// "NVLS Creating Multicast group", "NVLS Created Multicast group", "NVLS group %llx adding dev",
// "NVLS importing shareableHandle", "NVLS Mapped UC", "NVLS Bind mem" (2.17 .. 2.22; the bind
// "will block until all ranks have been added to the Group", nvls.cc:166 @ v2.19.3-1),
// "NVLS Mapped MC buffer", "NVLS rank %d (dev %d) alloc done" (2.23+), "NVLS comm %p headRank".
// Not the teardown ("NVLS Unbind", "NVLS Unmap") or the buffer registration of collectives.
inline bool nccl_nvls_setup_message(std::string_view m) {
  if (!m.starts_with("NVLS ")) return false;
  m.remove_prefix(5);
  for (std::string_view p :
       {"Creating Multicast group", "Created Multicast group", "group ",
        "importing shareableHandle", "Mapped UC", "Bind mem", "Mapped MC", "comm "})
    if (m.starts_with(p)) return true;
  return m.starts_with("rank ") && m.find(" alloc done") != std::string_view::npos;
}

}  // namespace trainready
