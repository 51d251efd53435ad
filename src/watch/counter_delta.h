#pragma once
// How much a cumulative counter advanced between two samples, and what that means in bytes.
#include <cstdint>
#include <optional>

#include "watch/proc_counters.h"

namespace trainready::watch {

// The width a kernel counter wraps at. /proc/net/dev and /proc/diskstats print unsigned long
// (64 bits on 64-bit kernels). InfiniBand port data counters are the 64-bit PortCountersExtended
// when the HCA has them (the kernel's sysfs picks them), else 32-bit PortCounters, which do not
// wrap but stop at their maximum (IBTA Vol. 1, 16.1.3.5): kIbPort treats a value pinned at
// 0xFFFFFFFF as saturated and anything else as 64-bit.
enum class CounterKind { kWraps64, kWraps32, kIbPort };

// nullopt when either side is unavailable, when the counter went backwards without a plausible
// wrap (a reset: driver reload, `perfquery -R`), when it jumped forward by 2^63 or more (a bad
// read such as all ones), or when a saturating counter is pinned at its maximum: the interval is
// then "unavailable", never a made-up rate.
std::optional<std::uint64_t> counter_delta(Counter before, Counter after, CounterKind kind);

// port_xmit_data / port_rcv_data count octets divided by 4 (IBTA Vol. 1 16.1.3.5 PortCounters
// and 16.1.4.11 PortCountersExtended: "Total number of data octets, divided by 4"; NVIDIA,
// "Understanding mlx5 Linux counters": "counting in double words, 32 bits"). The factor is 4 on
// every link width: guilbaults/infiniband-exporter#51 reads it as "per lane, multiply by 4",
// which gives the right factor only on 4X links; multiplying by the lane count (atop #354,
// netdata #14747) is wrong on 1X, 2X (HDR100) and 8X ports.
inline constexpr std::uint64_t kIbDataUnitBytes = 4;

// A 32-bit PortCounters value pinned at its maximum cannot advance: counter_delta refuses it.
inline constexpr std::uint64_t kIb32BitMax = 0xFFFFFFFFull;

// A port or NIC rate above this multiple of its line rate is not traffic (a counter misread or
// reset within the interval; sampling jitter stays far below): that interval's rate is
// unavailable. trainready's margin, not a standard.
inline constexpr double kAboveLineRate = 1.25;

}  // namespace trainready::watch
