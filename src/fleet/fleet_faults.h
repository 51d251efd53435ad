#pragma once
// Test hook, not a user option: TRAINREADY_FLEET_TEST_FAULT="RANK:KIND[,RANK:KIND...]" makes the
// named ranks misbehave on purpose, so the tests can show that each kind of bad rank becomes a
// finding about that node under a real mpirun (docs/fleet.md, "Test hooks"). Kinds:
//   silent      sleeps before its hello: it never answers at all
//   hang        says hello, then hangs: its facts never come
//   probe-hang  its probe process hangs: the rank gives up after --probe-timeout
//   probe-exit  its probe process exits with status 3 before sending facts
//   garbage     sends bytes that are not facts
//   version     claims to be trainready 0.0.0-test (mixed versions)
//   format      sends a message in a format this trainready does not read
#include <map>
#include <string>

namespace trainready {

enum class FleetFault {
  kNone,
  kSilent,
  kHang,
  kProbeHang,
  kProbeExit,
  kGarbage,
  kVersion,
  kFormat
};

inline constexpr const char* kFleetFaultEnv = "TRAINREADY_FLEET_TEST_FAULT";

// Parses the variable's value; throws InputError naming the bad entry.
std::map<int, FleetFault> parse_fleet_faults(const std::string& spec);
// This rank's fault from the environment (kNone when unset or not named).
FleetFault fleet_fault_for(int rank);

}  // namespace trainready
