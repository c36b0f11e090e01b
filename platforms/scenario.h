// A scenario = platform + traffic + parameter overrides + run settings + timed events, read
// from YAML. Every key is checked: an unknown key, a bad unit or an impossible value is a
// config_error naming the key path and the value.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "models/cc/flow.h"
#include "platforms/topology.h"
#include "platforms/workload.h"

namespace sluice {

struct link_event {
  sc_core::sc_time at;
  std::string link;  // link name "a-b"
  data_rate rate;
};

struct scenario {
  std::string name, description;
  topology_spec topology;
  std::vector<flow_spec> flows;  // expanded: one entry per flow, src/dst as node names below
  std::vector<std::pair<std::string, std::string>> flow_ends;  // (src, dst) names per flow
  std::vector<std::pair<std::string, std::string>> params;     // (pattern, value), in order
  std::vector<link_event> events;
  std::vector<workload_spec> workloads;  // expanded into `flows` once the seed is known
  sc_core::sc_time until = sc_core::sc_time(1, sc_core::SC_MS);
  sc_core::sc_time sample_period = sc_core::sc_time(10, sc_core::SC_US);
  uint64_t seed = 1;
  bool stop_when_done = false;      // end the run when every (finite) flow has completed
  bool allow_inert = false;         // run.allow_inert: settings that do nothing warn instead of failing
  std::string profile = "default";  // hardware profile (platforms/profiles.h), checked when read
  std::string source;               // where the text came from: the file's path as given, or the origin of inline text
  std::string source_sha256;        // SHA-256 of that text, hex (summary.json's provenance)
};

// The contents of the input file `path`, named `key` in errors. Only a regular file of at most
// `max_bytes`: a device (/dev/zero) would be read until memory runs out, and /dev/stdin, a FIFO
// or a folder would block or read nothing.
std::string read_input_file(const std::string& path, const std::string& key, std::size_t max_bytes);

// A scenario file holds at most this many bytes (a 25 000-link custom fabric is about 1 MB).
constexpr std::size_t max_scenario_bytes = 16 << 20;

scenario load_scenario_file(const std::string& path);
// base_dir: where relative paths in the scenario (CDF files) are resolved.
scenario load_scenario_text(const std::string& yaml_text, const std::string& origin = "scenario",
                            const std::string& base_dir = ".");

}  // namespace sluice
