// Time series: every sample period, the depth of each used switch egress queue, the
// throughput of each link direction, and the delivered throughput of each flow. Rows are kept
// in memory (one row per period, not per packet) and written as CSV at the end.
#pragma once
#include <functional>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "platforms/fabric.h"
#include "platforms/series.h"

namespace sluice {

// Where a column or a summary entry stands in the single-process run's order, whichever
// partition emitted it: switch ports (in node order, then port, then class) before NIC ports;
// a link's two directions after its index in the topology; a flow's columns after its id.
namespace series_order {
inline uint64_t port(bool nic, uint32_t node, int port, int cls) {
  return (uint64_t{nic} << 60) | (uint64_t{node} << 24) | (static_cast<uint64_t>(port) << 8) |
         static_cast<uint64_t>(cls);
}
inline uint64_t link(uint32_t topology_index, bool ba) { return uint64_t{topology_index} * 2 + ba; }
inline uint64_t flow(uint32_t id, bool target) { return uint64_t{id} * 2 + target; }
// Each entry of f.links: its index in the scenario's topology links (a partition holds only some).
std::vector<uint32_t> topology_link_index(const fabric& f);
}  // namespace series_order

// Gb/s per byte over a sample of elapsed_ps (the throughput series, and their merge).
inline double gbps_per_byte(uint64_t elapsed_ps) { return 8.0 / (static_cast<double>(elapsed_ps) * 1e-12) / 1e9; }

class sampler : public sc_core::sc_module {
 public:
  sampler(sc_core::sc_module_name name, fabric& f, sc_core::sc_time period);
  SC_HAS_PROCESS(sampler);

  series queue_depth;      // bytes, column "sw0.port3.p3"
  series link_throughput;  // Gb/s, column "sw0->r0"
  series flow_throughput;  // Gb/s of delivered payload, column = flow name ("all workload flows")
  series paused_fraction;  // share of the period each MAC port's priority was paused, "sw0.port2.p3"
  // InfiniBand: share of the period each port's VL waited for credit, "sw0.port2.p3" (no
  // columns on a CEE fabric).
  series credit_blocked_fraction;
  // bit/s: each listed flow's current rate limit, column = flow name (its limiter's rate; the
  // flow's own pace, configured or line rate, when unlimited), and for a flow with a reaction
  // point its target rate, column "<flow> target" (the current rate while the RP has none).
  series flow_rate;
  // Each congestion point that keeps a state (TCD: 0 non-congestion, 1 undetermined,
  // 2 congestion), at the sample time, column "sw0.port2.p3"; no columns without such points.
  series cp_state;
  // Bytes: each switch's buffer in use (every priority group's reserved, shared and headroom
  // bytes), column = the switch's name.
  series buffer_occupancy;

  // Memory the rows of a run of `samples` samples will hold: columns x 8 B per sample, plus
  // each series' time (cp_state's columns, at most the queues', are not known yet).
  double estimated_bytes(double samples) const;
  // A run that knows its end: room for this many samples is made once every column is known
  // (at the start of the simulation), so the rows take what they hold and are never copied.
  void expect_samples(std::size_t samples) { expected_samples_ = samples; }

  // Every series, by CSV file name without ".csv", in the order written (csv_written says which are).
  std::vector<std::pair<std::string, const series*>> all_series() const;
  static bool csv_written(const std::string& name, const series& s) {
    return !s.columns.empty() || (name != "credit_blocked_fraction" && name != "cp_state");
  }
  // The raw material of the "all workload flows" column: at each sample, the payload bytes the
  // workload flows this process receives have delivered so far, and the sample times (ps).
  const std::vector<uint64_t>& workload_rx_bytes() const { return workload_rx_bytes_; }
  const std::vector<uint64_t>& sample_times_ps() const { return sample_ps_; }
  bool has_workload_column() const { return workload_column_; }
  // Keeps those bytes per receiving node too (by node id, at each sample), so that one process
  // can emit the partial series of any partition after the run (tests emulating partitions).
  void keep_workload_bytes_by_receiver() { by_receiver_ = true; }
  const std::vector<std::vector<uint64_t>>& workload_rx_bytes_by_receiver() const { return workload_by_receiver_; }

  // Takes a last, possibly shorter, sample at the current time if the run ended between ticks.
  void finish();
  // Called after every sample with its time (the invariants are checked at sample boundaries).
  void on_sample(std::function<void(uint64_t)> f) { on_sample_ = std::move(f); }
  // The most (port, priority) pairs paused at any time within one sample: the extent of the
  // congestion tree as the samples see it.
  std::size_t max_ports_paused() const { return max_ports_paused_; }
  double max_ports_paused_at_us() const { return max_ports_paused_at_us_; }
  // The same for credit starvation: the most (port, VL) pairs blocked within one sample.
  std::size_t max_ports_credit_blocked() const { return max_ports_blocked_; }
  double max_ports_credit_blocked_at_us() const { return max_ports_blocked_at_us_; }

 private:
  void start_of_simulation() override;
  void sample();
  struct queue_ref {
    const switch_port* port;
    int priority;
  };
  struct pause_ref {
    const pfc* fc;
    int priority;
    uint64_t last_ps;  // paused time at the last sample
  };
  fabric& fabric_;
  sc_core::sc_time period_;
  sc_core::sc_event tick_;
  std::vector<queue_ref> queues_;
  std::vector<const link_channel*> channels_;
  std::vector<pause_ref> pauses_;
  std::vector<const congestion_point_if*> states_;  // cp_state's columns
  struct blocked_ref {
    const credit_flow_control* fc;
    int vl;
    uint64_t last_ps;  // blocked time at the last sample
  };
  std::vector<blocked_ref> blocked_;
  std::size_t max_ports_blocked_ = 0;
  double max_ports_blocked_at_us_ = 0;
  std::vector<uint64_t> last_link_bytes_, last_flow_bytes_;  // the latter by flow id
  std::vector<uint32_t> flow_columns_;                       // flow ids with a column of their own
  // flow_rate's columns, found once (the sender's NIC and the flow's pace were two look-ups a
  // flow and sample).
  struct rate_ref {
    const nic* sender;    // nullptr: the sender is another partition's (the column stays 0)
    double own_pace_bps;  // the flow's configured rate (0: line rate)
    uint32_t id;
    bool target;  // a reaction point's target rate follows, in a column of its own
  };
  std::vector<rate_ref> rates_;
  double rate_now(const rate_ref& f) const;
  bool workload_column_ = false;
  uint64_t last_workload_bytes_ = 0;
  std::vector<uint64_t> workload_rx_bytes_, sample_ps_;
  bool by_receiver_ = false;
  std::vector<std::vector<uint64_t>> workload_by_receiver_;
  uint64_t last_sample_ps_ = 0;
  std::size_t expected_samples_ = 0;
  std::size_t max_ports_paused_ = 0;
  double max_ports_paused_at_us_ = 0;
  std::function<void(uint64_t)> on_sample_;
};

}  // namespace sluice
