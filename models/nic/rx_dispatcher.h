// The NIC's receive side: dispatches each arriving frame by the role its kind registered
// (frame_kinds.h). Data frames are counted per flow (bytes, first/last arrival, completion) and
// shown to the notification point; feedback frames (CNM, CNP, ACK, or a kind a scheme added) go
// to the reaction point of the flow they are about.
#pragma once
#include <array>
#include <functional>
#include <unordered_map>
#include <vector>

#include "models/cc/ack_model.h"
#include "models/cc/flow.h"
#include "models/cc/notification_point.h"
#include "models/cc/reaction_point.h"
#include "models/core/frame_kinds.h"
#include "models/core/model_signal.h"
#include "models/link/mac_port.h"

namespace sluice {

class alignas(64) rx_dispatcher : public frame_sink_if {
 public:
  rx_dispatcher(uint32_t node_id, flow_table& flows)
      : node_id_(node_id), flows_(flows), kinds_(frame_kind_registry::instance()) {}

  void set_notification_point(notification_point_if* np) {
    np_ = np;
    update_plain();
  }
  void set_ack_model(ack_model* acks) { acks_ = acks; }
  // The reaction point of a flow this NIC sends (feedback about it is delivered there).
  void set_reaction_point(uint32_t flow_id, reaction_point_if* rp);
  void on_flow_complete(std::function<void(uint32_t)> hook) { completion_hook_ = std::move(hook); }
  // Raised when a finite flow completes here, at the model time of its last bit (see
  // model_signal); last_completed() is that flow's id.
  model_signal& completion_signal() { return completed_; }
  uint32_t last_completed() const { return last_completed_; }

  void receive_frame(tlm::tlm_generic_payload* frame, int port_index) override;

  uint64_t frames_received() const { return rx_frames_; }
  uint64_t misdelivered() const { return misdelivered_; }
  uint64_t received(frame_kind k) const { return by_kind_[static_cast<int>(k)]; }
  const uint64_t& received_counter(frame_kind k) const { return by_kind_[static_cast<int>(k)]; }
  uint64_t unmatched_feedback() const { return unmatched_feedback_; }
  // Resequencing: data frames that arrived ahead of a gap in their flow and were held until it
  // filled, and the time they waited (total and longest, ps).
  void set_resequencing(bool on) {
    resequencing_ = on;
    update_plain();
  }
  uint64_t resequenced() const { return resequenced_; }
  uint64_t resequencing_delay_ps() const { return reseq_delay_ps_; }
  uint64_t resequencing_delay_max_ps() const { return reseq_delay_max_ps_; }
  uint64_t out_of_order_delivered() const { return out_of_order_; }
  // For the invariants' conservation: data frames held for resequencing now, and data frames
  // counted as misdelivered (of frames_received: for another NIC or an unknown flow).
  std::size_t held_frames() const { return holding_; }
  uint64_t data_misdelivered() const { return data_misdelivered_; }

 private:
  friend struct invariant_test_hooks;
  // Every frame receive_frame's short path does not take (out of line: that path then saves no
  // registers for it).
  [[gnu::noinline]] void receive_any(tlm::tlm_generic_payload* p);
  // Inlined into receive_any, its one caller: the call and its register saves were 10
  // instructions a data frame.
  [[gnu::always_inline]] inline void receive_data(packet_header& h);
  // The frame is for this NIC and its flow id within the table (tested against the table's length
  // in bytes: the same test as against its size, without dividing by the flow's 320 bytes).
  bool for_a_flow_here(const packet_header& h) const {
    const std::size_t table_bytes =
        reinterpret_cast<const char*>(flows_.data() + flows_.size()) - reinterpret_cast<const char*>(flows_.data());
    return h.dst == node_id_ && std::size_t{h.flow_id} * sizeof(flow) < table_bytes;
  }
  // A delivery's counts: deliver without the completion test.
  [[gnu::always_inline]] inline void count_delivery(flow& f, uint32_t payload, uint64_t now);
  [[gnu::noinline]] void receive_feedback(const packet_header& h, uint8_t kind);
  // Inlined into receive_data (as before resequencing): a call there cost 7 instructions a hop.
  [[gnu::always_inline]] inline void deliver(flow& f, uint32_t payload, uint64_t now);
  void hold(flow& f, const packet_header& h, uint64_t now);
  void release_held(flow& f, uint64_t now);
  // receive_frame's short path reads and writes the first line alone (with the vtable pointer:
  // the class is 64-byte aligned), the data frames' count by kind included.
  uint32_t node_id_;
  // No notification point, resequencing or held frame: receive_frame's short path may deliver a
  // data frame in order (one flag for three tests) if no ACK model is on (its switch is a live
  // parameter, read there).
  bool plain_ = true;
  flow_table& flows_;
  const frame_kind_registry& kinds_;
  ack_model* acks_ = nullptr;
  uint64_t rx_frames_ = 0;
  std::array<uint64_t, max_frame_kinds> by_kind_{};
  notification_point_if* np_ = nullptr;
  std::function<void(uint32_t)> completion_hook_;
  model_signal completed_;
  uint32_t last_completed_ = 0;
  uint64_t misdelivered_ = 0, unmatched_feedback_ = 0, data_misdelivered_ = 0;
  // Frames that arrived ahead of their flow's next byte (adaptive routing reorders), by flow,
  // each list in sequence order. In order, a frame's seq equals the bytes delivered so far, so
  // a fabric that keeps order keeps nothing here.
  struct held {
    uint64_t seq, arrived_ps;
    uint32_t payload;
  };
  std::unordered_map<uint32_t, std::vector<held>> held_;
  std::size_t holding_ = 0;    // frames in held_
  bool resequencing_ = false;  // off: a lost frame must not stall its flow where nothing reorders
  void update_plain() { plain_ = !np_ && !resequencing_ && holding_ == 0; }
  bool acking() const { return acks_ && acks_->enable(); }
  uint64_t resequenced_ = 0, reseq_delay_ps_ = 0, reseq_delay_max_ps_ = 0, out_of_order_ = 0;
};

}  // namespace sluice
