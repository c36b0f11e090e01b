// Open-loop workloads: flows whose sizes follow an empirical CDF, arriving at each source as a
// Poisson process whose rate makes the offered load a given fraction of the source's link.
// Expanded into ordinary finite flows once the run's seed is known, so the same seed gives the
// same flows.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "models/core/units.h"

namespace sluice {

struct scenario;
struct topology_spec;

// A piecewise-linear CDF of flow sizes (bytes) read from "size cumulative_percent" lines.
class size_cdf {
 public:
  // Bounds on a CDF file: the shipped ones are a few hundred bytes and about a dozen lines.
  static constexpr std::size_t max_file_bytes = 1 << 20, max_lines = 100000;
  // `key` names the setting for error messages. Throws config_error on a bad file: one that is
  // not a regular file (a device, a FIFO, a folder), larger than max_file_bytes, longer than
  // max_lines or not made of decimal 'size cumulative_percent' lines.
  static size_cdf from_file(const std::string& path, const std::string& key);
  static size_cdf from_text(const std::string& text, const std::string& key);
  double mean_bytes() const;
  // The size at cumulative probability u in [0, 1), at least 1 byte.
  uint64_t sample(double u) const;

 private:
  std::vector<std::pair<double, double>> points_;  // (bytes, probability in [0, 1])
};

// The traffic kinds drawn once the seed is known (traffic_patterns.h for all but poisson).
enum class workload_pattern : uint8_t { poisson, incast, permutation, all_to_all, ring_allreduce };

struct workload_spec {
  std::string key;        // "traffic[2]", for messages
  std::size_t group = 0;  // the traffic index, in flow names
  workload_pattern pattern = workload_pattern::poisson;
  std::vector<std::string> srcs, dsts;  // NIC names; the matrices and the ring: both = `hosts`
  std::string cdf_path;                 // poisson, and incast unless `size`
  double load = 0;                      // poisson: fraction of each source's link rate; incast: of each receiver's
  sc_core::sc_time start, stop;
  uint8_t priority = 0;
  std::string cc;     // congestion-control scheme of its flows (`cc:`), "" if none
  uint64_t size = 0;  // incast: each sender's bytes (0: drawn from cdf); matrices: per flow; ring: buffer
  data_rate rate{0};  // matrices: pacing rate (a constant flow when size is 0); else line rate
  uint64_t fan_in_min = 1, fan_in_max = 15;  // incast
  bool shuffled = false;                     // ring: members in a seeded random order
  uint64_t iterations = 1;                   // ring: all-reduces, one every `period`
  sc_core::sc_time interval, period;         // ring: between steps, between all-reduces
};

// The rate of the one link of NIC `nic` (0 if it has none).
data_rate nic_link_rate(const topology_spec& t, const std::string& nic);

// Appends the flows of every workload of `s` to s.flows, drawn from streams seeded by `seed`.
void expand_workloads(scenario& s, uint64_t seed);

}  // namespace sluice
