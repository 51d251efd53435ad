// Which of NCCL's INFO lines belong to a phase of communicator init, for the parser (a stream
// that printed one has begun init) and for the rules that read where a stuck rank stopped.
#pragma once

#include <initializer_list>
#include <string_view>

namespace trainready {

namespace nccl_init_phase_detail {
// "NVLS " then one of `steps`, or (with `adding_dev`) "NVLS group %llx adding dev".
inline bool nvls_line(std::string_view m, std::initializer_list<std::string_view> steps,
                      bool adding_dev) {
  if (!m.starts_with("NVLS ")) return false;
  m.remove_prefix(5);
  for (std::string_view p : steps)
    if (m.starts_with(p)) return true;
  return adding_dev && m.starts_with("group ") && m.find(" adding dev") != std::string_view::npos;
}
}  // namespace nccl_init_phase_detail

// The NVLS (NVLink SHARP) group and buffer setup of init, transport/nvls.cc 2.17 .. 2.30:
// "NVLS Creating Multicast group", "NVLS Created Multicast group", "NVLS group %llx adding dev"
// and "NVLS Mapped UC" / "NVLS Mapped MC buffer" (2.17 .. 2.21), "NVLS importing
// shareableHandle", "NVLS Bind mem" (2.17 .. 2.21: the bind "will block until all ranks have been
// added to the Group", nvls.cc:166 @ v2.19.3-1), "NVLS comm %p headRank". Not "NVLS rank %d (dev
// %d) alloc done" (2.22.3+: printed after the bind, and from 2.22.3 the buffers may be set up at
// the first collective, group.cc), the teardown ("NVLS Unbind", "NVLS Unmap") or the buffer
// registration of collectives.
inline bool nccl_nvls_setup_message(std::string_view m) {
  return nccl_init_phase_detail::nvls_line(
      m,
      {"Creating Multicast group", "Created Multicast group", "group ", "importing shareableHandle",
       "Mapped UC", "Bind mem", "Mapped MC", "comm "},
      false);
}

// The NVLS setup lines after which a rank waits for the other GPUs of the multicast group: the
// root's "NVLS Creating/Created Multicast group" (then the handle is shared), "NVLS importing
// shareableHandle" and "NVLS group %llx adding dev" (then cuMulticastAddDevice), "NVLS Mapped UC"
// and "NVLS Bind mem" (then cuMulticastBindMem, which "will block until all ranks have been added
// to the Group"), "NVLS Mapped MC buffer" (then cuMemSetAccess, which "will block until all
// ranks have bound", nvls.cc:207 @ v2.19.3-1). "NVLS comm ... headRank" (before the buffers) is
// setup, not a wait.
inline bool nccl_nvls_waiting_step(std::string_view m) {
  return nccl_init_phase_detail::nvls_line(
      m,
      {"Creating Multicast group", "Created Multicast group", "importing shareableHandle",
       "Mapped UC", "Bind mem", "Mapped MC"},
      true);
}

// Of those, the ones only init prints (ncclNvlsSetup, 2.17 .. 2.21): a user buffer's
// registration at a collective also creates, shares and imports a multicast group
// (tryRegisterBuffer, nvls.cc @ v2.19.3-1 .. v2.30.7-1), but adds the device and binds with no
// line of its own.
inline bool nccl_nvls_init_only_step(std::string_view m) {
  return nccl_init_phase_detail::nvls_line(m, {"Mapped UC", "Bind mem", "Mapped MC"}, true);
}

}  // namespace trainready
