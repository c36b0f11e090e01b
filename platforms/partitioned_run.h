// One process's part of a run split into partitions (docs/parallel.md): the frames its links
// ship to other partitions, and the kernel run in windows of the lookahead with an exchange of
// those frames between windows (conservative synchronization, barrier windows).
#pragma once
#include <cstdint>
#include <vector>

#include "models/link/link.h"
#include "platforms/parallel_transport.h"
#include "platforms/topology.h"

namespace sluice {

class fabric;

// Collects the frames of the link directions whose receiver is in another partition, per
// destination, over one window; after it, sends them and hands the frames shipped to this
// process to its copies of their links.
class frame_mailbox final : public frame_shipper {
 public:
  // owner: the partition of each node (partition_plan::owner).
  frame_mailbox(const fabric& f, const std::vector<uint32_t>& owner, int parts);
  void ship(uint32_t channel, uint64_t sent_ps, uint64_t arrives_ps, tlm::tlm_generic_payload& frame) override;
  // Collective: every partition calls it at the same window boundary.
  void exchange(parallel_transport& t, fabric& f);
  uint64_t frames_sent() const { return frames_sent_; }
  uint64_t frames_received() const { return frames_received_; }
  uint64_t bytes_sent() const { return bytes_sent_; }

 private:
  std::vector<uint32_t> receiver_;  // partition of each link direction's receiver
  std::vector<std::vector<char>> out_;
  uint64_t frames_sent_ = 0, frames_received_ = 0, bytes_sent_ = 0;
};

// A windowed run's cut links (docs/parallel.md, windows): the frames shipped in a window, by the
// partition of their receivers, handed to the same link direction's receiving side with
// accept() after the window (the payload itself: one process). With threads, each lane (thread)
// ships into lists of its own; a link direction's frames all come from one lane, in order.
class window_mailbox final : public frame_shipper {
 public:
  // Before the fabric is built (its clients' partitions are known from their first schedule on).
  window_mailbox(const topology_spec& t, const std::vector<uint32_t>& owner, int parts, int threads = 1);
  // The fabric built: its cut links ship here.
  void attach(fabric& f);
  void ship(uint32_t channel, uint64_t sent_ps, uint64_t arrives_ps, tlm::tlm_generic_payload& frame) override;
  // The frames shipped to partition `part` since its last delivery (on the lane that holds it).
  void deliver(uint32_t part);
  // The partition of a timed client made outside a wake-up, from its order key (order_scope):
  // a node's, or a link direction's receiver's; the run's own clients (owner 0) go to 0.
  uint32_t part_of_key(uint64_t key) const;

 private:
  struct shipped {
    link_channel* channel;
    uint64_t sent_ps, arrives_ps;
    tlm::tlm_generic_payload* frame;
  };
  std::vector<link_channel*> channel_;
  std::vector<uint32_t> receiver_;  // partition of each link direction's receiver
  std::vector<uint32_t> owner_;
  std::vector<std::vector<std::vector<shipped>>> to_;  // [sending lane][receiving partition]
};

// Runs the kernel from now until end_ps in windows of lookahead_ps, exchanging the mailbox after
// each: a frame shipped in [w, w + lookahead) lands at or after w + lookahead, so every partition
// has it before its models reach that time. Returns the number of windows.
uint64_t run_windows(uint64_t end_ps, uint64_t lookahead_ps, frame_mailbox& mailbox, parallel_transport& t, fabric& f);

}  // namespace sluice
