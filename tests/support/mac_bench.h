// A one-model bench: two MAC ports (a, b) joined by one link, each with a recording frame
// source and sink, so a flow-control component (PFC, a test credit gate) can be attached to
// either end and its effect on the wire timed exactly. Build it inside a test body (one per
// process) and run it with sluice::start.
#pragma once
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <vector>

#include "models/core/event_queue.h"
#include "models/link/link.h"
#include "models/link/mac_port.h"

namespace sluice::test {

// Sends `count[c]` frames of `bytes[c]` on each class c, lowest class first, as the gate
// allows; records each frame's start time and class.
struct recording_source : frame_source_if {
  flow_control_if* gate = nullptr;
  std::array<uint32_t, max_classes> bytes{};
  std::array<uint64_t, max_classes> count{};
  std::vector<uint64_t> starts;
  std::vector<int> classes;

  void add(int cls, uint32_t frame_bytes, uint64_t frames) {
    bytes[cls] = frame_bytes;
    count[cls] = frames;
  }
  bool open(int c, uint64_t now_ps) const { return !gate || gate->may_send(c, bytes[c], now_ps); }
  tlm::tlm_generic_payload* next_frame(uint64_t now_ps, uint64_t& retry_ps) override {
    for (int c = 0; c < max_classes; ++c) {
      if (!count[c]) continue;
      if (!open(c, now_ps)) {
        gate->on_waiting(c, bytes[c]);  // refused at real time: the gate hears it waits
        retry_ps = std::min(retry_ps, gate->blocked_until_ps(c, now_ps));
        continue;
      }
      --count[c];
      tlm::tlm_generic_payload* p = packet_pool::instance().acquire();
      packet_header& h = header(*p);
      h.kind = frame_kind::data;
      h.priority = static_cast<uint8_t>(c);
      h.size = bytes[c];
      h.created_ps = now_ps;
      starts.push_back(now_ps);
      classes.push_back(c);
      return p;
    }
    return nullptr;
  }
  // As the models' sources: a class only new input opens is looked at when the wire is free, so
  // that next_frame tells the gate it waits then.
  uint64_t next_ready_ps(uint64_t now_ps) const override {
    uint64_t next = never_ps;
    for (int c = 0; c < max_classes; ++c)
      if (count[c]) {
        const uint64_t t = open(c, now_ps) ? now_ps : gate->blocked_until_ps(c, now_ps);
        next = std::min(next, t == never_ps ? now_ps : t);
      }
    return next;
  }
};

// Records every frame handed to it (arrival time, kind, class, size) and releases it.
struct recording_sink : frame_sink_if {
  struct arrival {
    uint64_t at_ps;
    frame_kind kind;
    int cls;
    uint32_t size;
  };
  std::vector<arrival> frames;
  void receive_frame(tlm::tlm_generic_payload* p, int) override {
    const packet_header& h = header(*p);
    frames.push_back({now_ps(), h.kind, h.priority, h.size});
    p->release();
  }
};

// All of a <-> b over `wire` but the a -> b direction: b's transmitter to a's receiver, and each
// MAC's wire, source and sink.
inline void join_but_a_to_b(link& wire, mac_port& a, mac_port& b, frame_source_if& a_src, frame_sink_if& a_sink,
                            frame_source_if& b_src, frame_sink_if& b_sink) {
  b.tx.bind(wire.ba.in);
  wire.ba.out.bind(a.rx);
  a.attach_wire(&wire);
  b.attach_wire(&wire);
  a.attach(&a_src, &a_sink);
  b.attach(&b_src, &b_sink);
}

// a <-> b over one link (default 40 Gb/s, 1 us).
struct mac_pair {
  link wire;
  mac_port a, b;
  recording_source a_src, b_src;
  recording_sink a_sink, b_sink;
  explicit mac_pair(data_rate rate = data_rate{40e9}, sc_core::sc_time delay = sc_core::sc_time(1, sc_core::SC_US))
      : wire("wire", rate, delay), a("a", 0, 0x020000000001ull), b("b", 0, 0x020000000002ull) {
    a.tx.bind(wire.ab.in);
    wire.ab.out.bind(b.rx);
    join_but_a_to_b(wire, a, b, a_src, a_sink, b_src, b_sink);
  }
};

// Runs (absolute time, action) steps, added in time order, from a kernel thread: a test's
// stimulus at exact times (a foreign process, so the models are seen exactly then).
struct step_driver : sc_core::sc_module {
  std::vector<std::pair<sc_core::sc_time, std::function<void()>>> steps;
  explicit step_driver(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
  SC_HAS_PROCESS(step_driver);
  void at(sc_core::sc_time t, std::function<void()> f) { steps.emplace_back(t, std::move(f)); }
  void run() {
    for (auto& [t, f] : steps) {
      wait(t - sc_core::sc_time_stamp());
      f();
    }
  }
};

// Picoseconds from a time written in ns (exact for the values the benches use).
constexpr uint64_t ns_ps(double ns) { return static_cast<uint64_t>(ns * 1000 + 0.5); }

}  // namespace sluice::test
