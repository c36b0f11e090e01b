// Time series: every sample period, the depth of each used switch egress queue, the
// throughput of each link direction, and the delivered throughput of each flow. Rows are kept
// in memory (one row per period, not per packet) and written as CSV at the end.
#pragma once
#include <string>
#include <systemc>
#include <vector>

#include "platforms/fabric.h"

namespace sluice {

struct series {
  std::vector<std::string> columns;
  std::vector<double> times_us;
  std::vector<std::vector<double>> rows;
  void write_csv(const std::string& path, const std::string& time_column) const;
};

class sampler : public sc_core::sc_module {
 public:
  sampler(sc_core::sc_module_name name, fabric& f, sc_core::sc_time period);
  SC_HAS_PROCESS(sampler);

  series queue_depth;      // bytes, column "sw0.port3.p3"
  series link_throughput;  // Gb/s, column "sw0->r0"
  series flow_throughput;  // Gb/s of delivered payload, column = flow name

 private:
  void start_of_simulation() override;
  void sample();
  struct queue_ref {
    const switch_port* port;
    int priority;
  };
  fabric& fabric_;
  sc_core::sc_time period_;
  sc_core::sc_event tick_;
  std::vector<queue_ref> queues_;
  std::vector<const link_channel*> channels_;
  std::vector<uint64_t> last_link_bytes_, last_flow_bytes_;
};

}  // namespace sluice
