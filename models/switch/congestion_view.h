// The stateful forwarding seam: what a path selector that adapts to congestion may see, and the
// interface such a selector implements. Oblivious selectors (ecmp, first, lft) stay plain
// path_selectors and never reach this code (forwarding_table::lookup tests one pointer).
//
// The view is read at the frame's routing time (the switch's models clock, now_ps()). Per
// output port and class it shows the egress queue's depth and whether the class may send now
// (PFC pause, InfiniBand credits); the congestion table holds what the switch learnt from
// notifications it snooped (docs/adaptive-routing.md).
#pragma once
#include <cstdint>
#include <vector>

#include "models/core/event_queue.h"
#include "models/core/packet.h"
#include "models/switch/forwarding_table.h"

namespace sluice {

// One (destination, output port) entry of the congestion table ([L2CC-tutorial], switch AR):
// congested while a notification arrived within the aging time, local (the switch's own
// congestion point) or remote (snooped on its way upstream), how many notifications since it
// became congested, and the last one's severity (QCN's quantized |Fb|, 1 for a CNP or BECN).
struct congestion_entry {
  uint64_t last_ps = 0;  // the latest notification (0: never)
  uint32_t fb_count = 0;
  uint16_t severity = 0;
  bool local = false;
  bool congested(uint64_t now_ps, uint64_t aging_ps) const { return last_ps != 0 && now_ps - last_ps < aging_ps; }
};

class congestion_table {
 public:
  void set_ports(int ports) {
    ports_ = ports;
    port_last_ps_.assign(static_cast<std::size_t>(ports), 0);
  }
  // Records a notification about traffic to `dst` leaving on `port`.
  void note(uint32_t dst, int port, uint16_t severity, bool local, uint64_t now_ps, uint64_t aging_ps) {
    const std::size_t i = static_cast<std::size_t>(dst) * ports_ + port;
    if (i >= entries_.size()) entries_.resize(i + ports_);
    port_last_ps_[port] = now_ps;
    congestion_entry& e = entries_[i];
    if (!e.congested(now_ps, aging_ps)) e.fb_count = 0;  // aged out: a new episode
    e.last_ps = now_ps;
    ++e.fb_count;
    e.severity = severity;
    e.local = local;
  }
  // Whether any destination's entry on `port` is congested.
  bool port_congested(int port, uint64_t now_ps, uint64_t aging_ps) const {
    return port_last_ps_[port] != 0 && now_ps - port_last_ps_[port] < aging_ps;
  }
  const congestion_entry& at(uint32_t dst, int port) const {
    static const congestion_entry none;
    const std::size_t i = static_cast<std::size_t>(dst) * ports_ + port;
    return i < entries_.size() ? entries_[i] : none;
  }

 private:
  int ports_ = 1;
  std::vector<congestion_entry> entries_;  // by dst * ports + port, grown by notifications only
  std::vector<uint64_t> port_last_ps_;     // by port: the latest notification for any destination
};

// The switch's side of the view: its egress ports' state.
class congestion_view {
 public:
  virtual ~congestion_view() = default;
  // Bytes queued at output `port` in the class the frame would take there.
  virtual uint64_t queue_bytes(int port, const frame_fields& f) const = 0;
  // Whether that class is held back now (paused by PFC, or short of InfiniBand credit).
  virtual bool blocked(int port, const frame_fields& f, uint64_t now_ps) const = 0;
};

// A path selector with state: it sees the time, the view and the congestion table, and may hear
// the congestion notifications the switch snoops. Only data frames are routed through choose();
// control frames take the ECMP hash (select()).
class adaptive_selector : public path_selector {
 public:
  std::size_t select(const std::vector<uint16_t>& ports, uint32_t dst, uint32_t src, uint32_t flow_id,
                     uint64_t salt) const override {
    return ecmp_index(ports.size(), dst, src, flow_id, salt);
  }
  // The output port of data frame `f` among `ports` (two or more), arrived on `in_port` (-1: made
  // by the switch).
  virtual int choose(const std::vector<uint16_t>& ports, const frame_fields& f, int in_port, uint64_t now_ps,
                     uint64_t salt) = 0;
  // Whether the switch should show it the notifications it forwards and makes (snoop).
  virtual bool snoops() const { return false; }
  // A congestion notification about flow `f.flow_id` passed (local: made by this switch's own
  // congestion point); `severity` >= 1. Returns true when the selector acted on it and it should
  // go no further (the switch then discards it, counted).
  virtual bool on_notification(const frame_fields& f, uint16_t severity, bool local, uint64_t now_ps) { return false; }
  void attach(const congestion_view* view) { view_ = view; }

 protected:
  const congestion_view* view_ = nullptr;
};

// One flag test separates the oblivious policies' path from the stateful one (adaptive, or
// source-routed paths). The stateful
// path is out of line: inlined, its call made every route() save six registers (20 instructions
// per switch arrival on the incast, with no adaptive policy anywhere).
inline int forwarding_table::lookup(const frame_fields& f, int in_port) const {
  if (stateful_) [[unlikely]]
    return lookup_adaptive(f, in_port);
  return lookup(f.dst, f.src, f.flow_id);
}

}  // namespace sluice
