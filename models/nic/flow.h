// Flows: what a NIC sends, and what is measured about it.
#pragma once
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include "models/core/units.h"

namespace sluice {

enum class flow_kind : uint8_t {
  constant,  // long-lived, paced at `rate` for ever
  finite,    // `size` bytes starting at `start`, as fast as the NIC (and its limiter) allow
  onoff,     // paced at `rate` for `on`, silent for `off`, repeating
};

struct flow_spec {
  std::string name;
  flow_kind kind = flow_kind::constant;
  uint32_t src = 0, dst = 0;
  uint8_t priority = 0;
  uint64_t size = 0;  // finite flows
  data_rate rate{0};  // constant/onoff: source rate; finite: 0 = line rate
  sc_core::sc_time start, on, off;
};

struct flow_stats {
  uint64_t tx_bytes = 0, rx_bytes = 0, rx_frames = 0;
  uint64_t first_rx_ps = 0, last_rx_ps = 0;
  uint64_t completed_ps = 0;  // last byte delivered (finite flows); 0 while incomplete
  bool completed() const { return completed_ps != 0; }
};

struct flow {
  uint32_t id = 0;
  flow_spec spec;
  flow_stats stats;
};

// All flows of a simulation, indexed by id (ids are dense, from 0).
using flow_table = std::vector<flow>;

}  // namespace sluice
