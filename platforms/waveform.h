// Waveforms: a VCD file (IEEE 1364 value change dump, which GTKWave opens) of chosen model
// signals, in picoseconds, built from the probe points (docs/observability.md, "Waveforms"):
//   <port>.prio<k>.queue_bytes     an egress class queue's depth (enqueue, dequeue)
//   <sw>.queued_bytes              the sum of a switch's egress queues
//   <port>.prio<k>.paused          a class's transmitter held by PFC (pause_on, pause_off)
//   <port>.vl<k>.credit_starved    a VL's head frame waiting for credit (InfiniBand)
//   <port>.vl<k>.credits           a VL's transmit credit, 64-byte blocks (InfiniBand)
//   <nic>.flow<id>.rate            a flow's rate limit, bit/s (0: unlimited) (rate_change)
//   <port>.prio<k>.marks           frames the class's congestion point marked so far (mark)
//   <port>.prio<k>.cp_state        a stateful congestion point's state (TCD), after each
//                                  enqueue and dequeue of its queue
//   <port>.prio<k>.fb              a sampling congestion point's (QCN, ECM) Fb at each sample,
//                                  bytes, signed (cp_sample)
// Only the signals matching the --trace patterns are recorded; with none asked for, nothing is
// subscribed and the datapath pays nothing.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/core/probe.h"

namespace sluice {

struct waveform_options {
  std::string path;                     // --vcd FILE ("": none)
  std::vector<std::string> patterns;    // --trace PATTERNS (globs over the signal names)
  uint64_t from_ps = 0, to_ps = ~0ull;  // --trace-window FROM:TO
};

class waveform {
 public:
  static constexpr std::size_t max_changes = 20'000'000;  // beyond it the recording stops (counted)

  // Subscribes to the probe points whose signals match; config_error if a pattern matches no
  // signal (naming it). `classes`: the fabric's traffic classes (8 CEE, 16 IB); `flows`: each
  // flow's (id, sending NIC's name).
  // `cp_state(egress, cls)`: the state of the congestion point of an egress queue (the probe
  // source of its enqueue and dequeue points), -1 if it has none or a stateless one.
  using cp_state_reader = std::function<int(const void* egress, int cls)>;
  waveform(const waveform_options& options, int classes, const std::vector<std::pair<uint32_t, std::string>>& flows,
           cp_state_reader cp_state = {});
  // Writes the file (sorted by time; config_error if it cannot be written).
  void finish(uint64_t end_ps);
  std::size_t signals() const { return names_.size(); }
  uint64_t dropped_changes() const { return over_; }

 private:
  struct change {
    uint64_t time_ps;
    uint32_t signal;
    uint64_t value;
  };
  using key = std::tuple<const void*, uint32_t, int>;  // (probe source, class or flow, family)
  int32_t add_signal(const std::string& name, bool one_bit);
  void record(uint32_t signal, uint64_t time_ps, uint64_t value);
  void on_queue(const probe_point& p, const probe_event& e);
  waveform_options options_;
  std::vector<std::string> names_;
  std::vector<bool> one_bit_;
  std::vector<change> changes_;
  std::map<key, int32_t> signal_of_;         // what each source's events drive
  std::map<key, uint64_t> depth_;            // (egress source, class): depth now, for the sums
  std::map<const void*, int32_t> total_of_;  // egress source -> its switch's sum signal
  std::vector<uint64_t> total_now_;          // by signal: a sum's value now (also a mark count's)
  cp_state_reader cp_state_;
  std::vector<int64_t> state_now_;  // by signal: a cp_state's value last recorded (-1: none yet)
  uint64_t over_ = 0;
};

}  // namespace sluice
