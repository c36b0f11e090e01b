// A MAC port: the transmitter and receiver ends of one link attachment, shared by NICs and
// switches. It knows no flow-control scheme: its flow-control component (PFC, credits) hands
// it control frames, which go ahead of everything, and receives the link-local control frames
// that arrive. Other frames come from a frame_source_if and go to a frame_sink_if; the source,
// not the MAC, asks the flow-control gate which classes may send.
#pragma once
#include <algorithm>
#include <systemc>

#include "models/core/event_queue.h"
#include "models/core/probe.h"
#include "models/core/ring.h"
#include "models/link/flow_control.h"
#include "models/link/wire_if.h"
#include "models/protocol/packet_protocol.h"
#include "models/protocol/socket_on_demand.h"

namespace sluice {

class link_channel;
class pfc;

// The block behind a transmitter (switch egress port, NIC transmit scheduler).
class frame_source_if {
 public:
  virtual ~frame_source_if() = default;
  // Returns the next frame to transmit (ownership passes to the port), or nullptr and lowers
  // `retry_ps` to the earliest time a frame may become sendable (never_ps if only new input can
  // change that; the source then calls mac_port::kick()).
  virtual tlm::tlm_generic_payload* next_frame(uint64_t now_ps, uint64_t& retry_ps) = 0;
  // After a frame starts: the earliest time the source could have another (never_ps if none
  // without new input). Lets the port sleep through a paced gap in one wake-up instead of two.
  virtual uint64_t next_ready_ps(uint64_t now_ps) const = 0;
};

// The block behind a receiver (switch ingress, NIC receive dispatcher). Takes ownership.
class frame_sink_if {
 public:
  virtual ~frame_sink_if() = default;
  virtual void receive_frame(tlm::tlm_generic_payload* frame, int port_index) = 0;
};

// The source of a port attached to none (no_source.cpp): it never has a frame, and after one of
// the port's own (a control frame) asks for a look when the wire frees. A port's source is then
// never null, and a transmit decision tests for none. Only a reference here: with its class in
// view, GCC would guess every source call to be its own (a compare and a branch each).
extern frame_source_if& no_frames;

// What every transmit decision reads, in the port's first two cache lines: right after the
// timer's fields (the event queue prefetches a client's first two lines a wake-up ahead, and a
// kick reads the pending time beside busy_until_ps_), not behind sc_module's 232 bytes, which a
// member of the port itself would follow. The port is aligned to a line, so that these are two
// lines, not three. A data frame's arrival reads none of them (its link keeps a copy of the sink
// and the index: link_channel::receiver_attached).
struct mac_port_fields {
  // The first line, with the timer's: what a kick and the transmit decision read.
  uint64_t busy_until_ps_ = 0;            // end of the frame on the wire (END_REQ)
  frame_source_if* source_ = &no_frames;  // never null
  link_channel* tx_link_ = nullptr;       // `tx` bound straight to our own link: the direct hop (direct_hops.h)
  // fc_ when it is our PFC itself, not a subclass (seen at the end of elaboration): whether a
  // control frame waits is then a test inline, not a virtual call per transmit decision.
  pfc* pfc_ = nullptr;
  // The second line: the decision's flags, gate and injected frames.
  bool sending_ = false;  // inside on_timer: a nested kick only asks for another look
  bool again_ = false;
  // Our PFC may have a frame waiting (pfc::request sets it, the decision clears it as it asks):
  // a decision then reads nothing of the PFC's lines unless it has.
  bool pfc_frame_ = false;
  int index_ = 0;  // (the flags' padding; an arrival through the port reads it)
  flow_control_if* fc_ = nullptr;
  // When our PFC's pauses all end, kept for the source (pfc::share_pauses_end; a switch port's
  // egress): in the line of the decision that calls it, so that while nothing is paused its
  // test of a class reads no line of the PFC's, nor one of its own.
  uint64_t source_pauses_end_ps_ = 0;
  ring<tlm::tlm_generic_payload*> control_;
  // Read by an arrival through the port: a link-local frame, an observed one, or one from the
  // socket.
  frame_sink_if* sink_ = nullptr;
};

// timed_client first: the queue's wake-up (on_timer, warm) then reaches this object without a
// this-adjusting thunk, and its schedules pass `this` as it is. Its fields next (above).
class alignas(64) mac_port : public timed_client,
                             private mac_port_fields,
                             public sc_core::sc_module,
                             public frame_receiver {
  tlm::tlm_fw_transport_if<packet_protocol_types>* tx_if_ = nullptr;  // what `tx` is bound to
  // What this port sent through its socket; on the direct hop its link counts every frame (the
  // same frames and bytes), so the transmit counts nothing twice.
  uint64_t frames_sent_ = 0;
  uint64_t bytes_sent_ = 0;
  link_channel* rx_link_ = nullptr;  // our own link delivering to this port: it keeps a copy of the sink
  // Our own link when it ships its frames to another partition (link_channel::ship_to): the
  // transmit takes the socket's branch, but hands it the frame with no socket to cross.
  link_channel* ship_link_ = nullptr;

 public:
  // Made when a model binds them (socket_on_demand.h): our own link is joined without them
  // (link_channel::join_from, join_to).
  socket_on_demand<frame_out_socket<mac_port>> tx;
  socket_on_demand<frame_in_socket> rx;

  mac_port(sc_core::sc_module_name name, int index, uint64_t mac_address);

  void attach(frame_source_if* source, frame_sink_if* sink);
  frame_sink_if* sink() const { return sink_; }
  void attach_flow_control(flow_control_if* fc) {
    fc_ = fc;
    pfc_ = nullptr;  // the interface's calls until the end of elaboration looks at its type
  }
  const flow_control_if* flow_control() const { return fc_; }
  // Our PFC has a frame to send (pfc::request, before its kick).
  void pfc_frame_waits() { pfc_frame_ = true; }
  // When our PFC's pauses end, for the source to share (pfc::share_pauses_end) and test.
  uint64_t& source_pauses_end() { return source_pauses_end_ps_; }
  uint64_t source_pauses_end_ps() const { return source_pauses_end_ps_; }
  void attach_wire(const wire_if* w) { wire_ = w; }
  // The wire this port transmits on; a port used before it is attached is a model error.
  const wire_if& wire() const;
  bool has_wire() const { return wire_ != nullptr; }
  int index() const { return index_; }
  uint64_t mac_address() const { return mac_; }

  // A frame became available, or a gate may have opened: transmit if the wire is free. Safe to
  // call from inside a source's next_frame (the nested request is served after the current frame).
  // Inline: most kicks are a frame queued behind the one on the wire, with the look already due
  // when the wire frees, and need no call. (While a frame is being started, busy_until_ps_ is
  // not after now, so the nested request always takes look().)
  void kick() {
    if (event_queue::current().pending_at(this) <= busy_until_ps_ && now_ps() < busy_until_ps_) return;
    look();
  }
  // Look for a frame at at_ps (or earlier, if a wake-up is already due earlier). Inline: the
  // queue's test for an earlier wake-up then costs no call.
  void wake_at(uint64_t at_ps) {
    const uint64_t now = now_ps();
    event_queue::current().schedule(this, std::max(at_ps, now));
  }
  // Queues a link-local frame (made by this port's owner) ahead of the source's frames.
  void inject(tlm::tlm_generic_payload* frame);

  // A frame's last bit from our own link channel, bound straight to this receiver: what
  // nb_transport_fw does with it, without the phase, the delay and the check at the door
  // (direct_hops.h). Inline: one call less per hop.
  void arrive(tlm::tlm_generic_payload& p) {
    if (probes::rx_end.on())
      receive_observed(p);
    else
      take(p);
  }
  // Transmits on our own link direction without a socket: the direct hop (link_channel::join_from).
  void transmit_on(link_channel& direction);
  // Our own link direction delivers to this port on the direct hop: attach tells it of a new sink.
  void receive_from(link_channel& direction) { rx_link_ = &direction; }
  // Frames consumed by the flow-control component of the port they reach, not by its sink.
  static bool link_local(frame_kind k) { return k == frame_kind::pfc || k == frame_kind::ib_credit; }
  // Whether this port transmits on the direct hop (its link is ours); for tests.
  bool transmits_directly() const { return tx_link_ != nullptr; }
  // Whether this port asks its PFC without virtual calls (it is a pfc, not a subclass); for tests.
  bool asks_pfc_directly() const { return pfc_ != nullptr; }

  // Statistics.
  uint64_t frames_sent() const;
  uint64_t bytes_sent() const;

 private:
  // The transmit decision: the queue's wake-up itself (not a jump to another function), and
  // called by kick as mac_port::on_timer, without the virtual call.
  void on_timer() final;
  void look();  // kick's general case, out of line
  // A frame's first bit to a link not ours; returns END_REQ's time (out of line: the decision
  // then keeps no TLM phase and delay on its stack).
  [[gnu::noinline]] uint64_t transmit_through_socket(tlm::tlm_generic_payload& p, uint64_t now);
  tlm::tlm_generic_payload* take_control_frame(uint64_t now);
  bool control_frame_ready() const;
  void warm() const override;
  void end_of_elaboration() override;
  // A frame's last bit arrived (frame_receiver, through rx). Final: the direct hop stands for it.
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_core::sc_time& delay) final;
  // A frame from the socket: taken (frames are posted, nothing goes back).
  tlm::tlm_sync_enum receive(tlm::tlm_generic_payload& p) {
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    return take(p);
  }
  // A frame from the direct hop: its status is TLM_OK_RESPONSE already (packet_pool::socket_crossed),
  // and the payload's first line is not touched.
  tlm::tlm_sync_enum take(tlm::tlm_generic_payload& p) {
    if (link_local(header(p).kind)) {  // consumed here
      if (fc_) fc_->on_control_frame(p);
      p.release();
      return tlm::TLM_COMPLETED;
    }
    sink_->receive_frame(&p, index_);
    return tlm::TLM_COMPLETED;
  }
  [[gnu::noinline, gnu::cold]] tlm::tlm_sync_enum receive_observed(tlm::tlm_generic_payload& p);

  uint64_t mac_;
  const wire_if* wire_ = nullptr;
};

}  // namespace sluice
