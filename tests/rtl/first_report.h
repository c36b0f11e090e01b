// Runs a simulation expected to stop with an error report (a lockstep mismatch, an interface
// assertion): the report's message, or "" if the run went to its end.
#pragma once
#include <string>

#include "tests/support/harness.h"

namespace sluice::test {

inline std::string first_report(simulation& sim) {
  try {
    sim.run();
  } catch (const sc_core::sc_report& e) {
    return e.get_msg();
  }
  return "";
}

}  // namespace sluice::test
