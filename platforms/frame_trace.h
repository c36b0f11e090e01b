// Frame traces: one row per frame per event along its path (a MAC starts or ends it on a wire,
// an egress queue takes or releases it, a congestion point marks it, a switch drops it), for the
// frames a filter chooses, written as frame_trace.csv (docs/observability.md, "Frame traces").
// Frame ids are kept across switches, so a flow's frames can be followed end to end. A
// subscriber of the probe points: with no trace asked for, the datapath pays nothing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/cc/flow.h"
#include "models/core/probe.h"

namespace sluice {

class fabric;

// Which frames a trace keeps: "flow=3" (a flow's id or name), "kind=data|cnm" (frame kinds),
// "id=1234" (one frame), terms joined by ',' (all must hold). Parsed against the run's flows.
struct frame_trace_filter {
  bool any_flow = true, any_kind = true, any_id = true;
  uint32_t flow_id = 0, kinds = 0;  // kinds: a bit per frame_kind
  uint64_t id = 0;
  // config_error naming `key`, the term and what is allowed.
  static frame_trace_filter parse(const std::string& text, const flow_table& flows, const std::string& key);
};

class frame_trace {
 public:
  static constexpr std::size_t max_rows = 5'000'000;  // ~200 MB: beyond it the trace stops (counted)

  // Parses the filter (config_error naming `key`, the term and what is allowed) and subscribes.
  frame_trace(const std::string& filter, const fabric& f, const std::string& key);
  std::size_t rows() const { return rows_.size(); }
  uint64_t dropped_rows() const { return over_; }  // events past max_rows, not kept
  // Columns, as written: frame_id, time_ns, event, at, node, kind, flow, class, bytes, queue_bytes.
  void write_csv(const std::string& path) const;
  struct row {
    uint64_t id, time_ps;
    const probe_point* point;
    uint32_t flow, bytes;
    uint64_t queue;  // enqueue/dequeue: the queue's depth after the event; else ~0
    uint8_t kind;
    int8_t cls;
  };
  const std::vector<row>& data() const { return rows_; }
  static std::string event_of(const probe_point& p);  // "tx_start"
  static std::string at_of(const probe_point& p);     // "sw0.port4.mac"

 private:
  void record(const probe_point& p, const probe_event& e);
  frame_trace_filter filter_;
  std::vector<row> rows_;
  uint64_t over_ = 0;
};

}  // namespace sluice
