// Link-level flow control of one port, as a component behind an interface.
//
// It gates transmission per traffic class (which classes may send now, and when that changes),
// owns its control frames (PFC frames, InfiniBand credit packets), and hears the admit/release
// events of the buffer behind the port's receiver. PFC (pfc.h) is the first implementation; the
// contract also fits per-VL credits: may_send() takes the frame size (credits are per block),
// on_transmit() consumes them, on_release() returns them to the upstream sender.
//
// The class count belongs to the fabric (8 PFC priorities, up to 16 IB VLs), not to this file.
#pragma once
#include <cstdint>
#include <string>
#include <tlm>

namespace sluice {

// The link layer of a fabric: CEE (Ethernet with PFC) or InfiniBand (per-VL credits). Every
// port of a fabric has the same; a switch or NIC port makes its flow-control component from it.
enum class link_layer : uint8_t { cee, ib };

class flow_control_if {
 public:
  virtual ~flow_control_if() = default;
  virtual int classes() const = 0;

  // --- transmit gate, asked by the port's frame source ---
  // May a frame of `bytes` on class `cls` start at now_ps? A pure query: sources also ask it
  // ahead of time (next_ready_ps at the end of the frame on the wire).
  virtual bool may_send(int cls, uint32_t bytes, uint64_t now_ps) const = 0;
  // When a closed class opens without further input (a pause expiring); never_ps if only a
  // received control frame can open it. The component wakes the port's MAC when that happens.
  // A source whose class waits on never_ps looks again when the wire is free (next_ready_ps), so
  // that the component hears the refusal at the real time it happens (on_waiting).
  virtual uint64_t blocked_until_ps(int cls, uint64_t now_ps) const = 0;
  // A frame of `bytes` on `cls` is ready at the transmitter now (now_ps()) and may_send refused
  // it: the source says so from next_frame, at real time only. Credits count the VL starved
  // from the first such call until credit lets a waiting frame go.
  virtual void on_waiting(int cls, uint32_t bytes) {}
  // A frame of `bytes` on `cls` started on the wire.
  virtual void on_transmit(int cls, uint32_t bytes) {}

  // --- its own control frames ---
  // The MAC asks whenever the wire is free, ahead of every other frame: a control frame to send
  // now (ownership passes to the MAC), or nullptr. Requests made while one waits merge into it.
  virtual tlm::tlm_generic_payload* take_control_frame(uint64_t now_ps) = 0;
  // Whether another control frame is ready now, asked after take_control_frame gave one: the MAC
  // then sends it as soon as the wire is free, ahead of the data source's own timing, and skips
  // that look when nothing waits (one wake-up fewer per PFC frame).
  virtual bool control_frame_ready() const { return true; }
  // A link-local control frame of this scheme arrived (the MAC releases it afterwards).
  virtual void on_control_frame(tlm::tlm_generic_payload& frame) = 0;

  // --- the buffer behind this port's receiver (switch ingress) ---
  // The buffer admitted `bytes` of class `cls` that came in on this port; xoff_due: it wants the
  // upstream sender stopped.
  virtual void on_admit(int cls, uint32_t bytes, bool xoff_due) = 0;
  // The buffer released `bytes` of that class; xon_due: the upstream sender may resume.
  virtual void on_release(int cls, uint32_t bytes, bool xon_due) = 0;

  // --- the ON-OFF pattern it imposes on this port's transmitter (NP-ECN, TCD) ---
  // When the class's latest OFF period (paused, or starved of credits) ended, at or before
  // now_ps: now_ps while it is OFF, 0 if it never was.
  virtual uint64_t off_end_ps(int cls, uint64_t now_ps) const { return 0; }
  // The loop behind that pattern, for TCD's ON-OFF model (docs/models/tcd.md): gap_bytes = B1 - B0,
  // the bytes between the downstream buffer's OFF and ON thresholds; tau_ps, the response time
  // from a threshold crossing there to its effect on the bytes arriving there; rate_bps, C, the
  // link's. All 0: none.
  struct on_off_loop {
    uint64_t gap_bytes = 0, tau_ps = 0;
    double rate_bps = 0;
  };
  virtual on_off_loop on_off(int cls) const { return {}; }
  // The link layer it belongs to: where a congestion point writes its code points (ECN or BTH).
  virtual link_layer layer() const { return link_layer::cee; }
};

// What a flow-control generator may ask of the buffer behind its port (the switch answers).
class ingress_state_if {
 public:
  virtual ~ingress_state_if() = default;
  enum class pause_check { not_paused, resumes_now, still_paused };
  // Re-evaluates the class's XON condition at the port's ingress (a group whose threshold rose,
  // or which holds nothing after a drop, resumes here).
  virtual pause_check recheck_pause(int port, int cls) = 0;
  // The XOFF-to-XON hysteresis of the class's group at the port's ingress, in bytes (0: none).
  virtual uint64_t xon_gap_bytes(int port, int cls) const { return 0; }
  // Why this buffer never asks for XOFF (no class is lossless), or "" when it may: the settings
  // of its ports' PFC generators, and of the watchdogs of the ports they would pause, are then
  // inert (asked once the overrides are final, never per frame).
  virtual std::string never_pauses() const { return ""; }
};

}  // namespace sluice
