// Fuzzes the scenario loader: YAML text -> checked scenario, without elaborating (SystemC
// elaborates once per process; load_scenario_text builds only the topology description, so it
// runs any number of times in one process). Bad input must be a config_error; any other
// exception, a crash, a sanitizer report, a hang or a leak is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "platforms/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    sluice::load_scenario_text(text, "fuzz", SLUICE_SCENARIO_DIR);  // `cdf:` paths resolve like a shipped scenario's
  } catch (const sluice::config_error&) {
  }
  return 0;
}
