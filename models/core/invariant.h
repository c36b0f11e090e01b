// Always-on invariants (docs/testing.md, "Invariants"): a violated one stops the run with one
// line naming the port, the class and the simulated time. The checks themselves live where the
// state is: O(1) at state changes in the models, and per port and class at sample boundaries
// and at the end of a run (platforms/invariants.*). Nothing here runs per frame.
#pragma once
#include <string>

namespace sluice {

// Stops the run: an SC_REPORT_ERROR of type "sluice/invariant" whose message reads
// "<where> prio <cls> at <time>: <what>" (cls < 0: no class). Never returns.
[[noreturn]] void invariant_failed(const std::string& where, int cls, const std::string& what);

// Test-only access to the models' private state, to break an invariant on purpose
// (tests/system/invariants_test.cpp defines it; the models only befriend it).
struct invariant_test_hooks;

}  // namespace sluice
