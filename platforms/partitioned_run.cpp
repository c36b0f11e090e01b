#include "platforms/partitioned_run.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

#include "models/core/event_queue.h"
#include "models/core/packet.h"
#include "platforms/fabric.h"

namespace sluice {
namespace {
// A shipped frame as sent: its direction, times, fields and, for a control frame, its image.
struct record_head {
  uint32_t channel;
  uint32_t has_image;
  uint64_t sent_ps, arrives_ps;
  frame_fields fields;
};

template <typename T>
void put(std::vector<char>& out, const T& v) {
  const char* p = reinterpret_cast<const char*>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}

// The partition of each link direction's receiver: a link's a-to-b direction (2i), then its
// b-to-a (2i + 1). node_id: a node's index in owner, from its name.
template <typename NodeId>
std::vector<uint32_t> receiving_partitions(const topology_spec& t, const std::vector<uint32_t>& owner, NodeId node_id) {
  std::vector<uint32_t> receiver(2 * t.links.size());
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    receiver[2 * i] = owner[node_id(t.links[i].b)];
    receiver[2 * i + 1] = owner[node_id(t.links[i].a)];
  }
  return receiver;
}
}  // namespace

frame_mailbox::frame_mailbox(const fabric& f, const std::vector<uint32_t>& owner, int parts)
    : receiver_(receiving_partitions(f.spec().topology, owner, [&f](const std::string& n) { return f.node_id(n); })),
      out_(static_cast<std::size_t>(parts)) {}

void frame_mailbox::ship(uint32_t channel, uint64_t sent_ps, uint64_t arrives_ps, tlm::tlm_generic_payload& frame) {
  const packet_header& h = header(frame);
  std::vector<char>& out = out_[receiver_[channel]];
  put(out, record_head{channel, h.image ? 1u : 0u, sent_ps, arrives_ps, h.fields()});
  if (h.image) put(out, *h.image);
  ++frames_sent_;
  bytes_sent_ += h.size;
  frame.release();
}

void frame_mailbox::exchange(parallel_transport& t, fabric& f) {
  const std::vector<std::vector<char>> in = t.exchange(out_);
  for (std::vector<char>& o : out_) o.clear();
  for (const std::vector<char>& from : in) {
    for (std::size_t at = 0; at < from.size();) {
      record_head r;
      std::memcpy(&r, from.data() + at, sizeof r);
      at += sizeof r;
      tlm::tlm_generic_payload* p = packet_pool::instance().acquire(r.has_image != 0);
      packet_header& h = header(*p);
      h.fields() = r.fields;
      if (r.has_image) {
        std::memcpy(h.image->data(), from.data() + at, sizeof(frame_image));
        at += sizeof(frame_image);
      }
      link_channel* c = f.link_channel_at(r.channel);
      if (!c)
        throw config_error("partitioned run: a frame for link direction " + std::to_string(r.channel) +
                           ", which this partition does not hold");
      c->accept(r.sent_ps, r.arrives_ps, p);
      ++frames_received_;
    }
  }
}

window_mailbox::window_mailbox(const topology_spec& t, const std::vector<uint32_t>& owner, int parts, int threads)
    : owner_(owner),
      to_(static_cast<std::size_t>(threads), std::vector<std::vector<shipped>>(static_cast<std::size_t>(parts))) {
  std::unordered_map<std::string, uint32_t> id;  // the fabric is not built yet: its nodes' order
  for (uint32_t i = 0; i < t.nodes.size(); ++i) id.emplace(t.nodes[i].name, i);
  receiver_ = receiving_partitions(t, owner, [&id](const std::string& n) { return id.at(n); });
}

void window_mailbox::attach(fabric& f) {
  channel_.resize(receiver_.size());
  for (uint32_t n = 0; n < channel_.size(); ++n) channel_[n] = f.link_channel_at(n);
  f.ship_cut_links(this, owner_);
}

void window_mailbox::ship(uint32_t channel, uint64_t sent_ps, uint64_t arrives_ps, tlm::tlm_generic_payload& frame) {
  to_[event_queue::current().lane_index()][receiver_[channel]].push_back(
      {channel_[channel], sent_ps, arrives_ps, &frame});
}

void window_mailbox::deliver(uint32_t part) {
  for (std::vector<std::vector<shipped>>& lane : to_) {
    for (const shipped& s : lane[part]) s.channel->accept(s.sent_ps, s.arrives_ps, s.frame);
    lane[part].clear();
  }
}

uint32_t window_mailbox::part_of_key(uint64_t key) const {
  const uint64_t owner = key >> 32;
  const uint64_t nodes = owner_.size();
  if (owner == 0) return 0;
  if (owner <= nodes) return owner_[owner - 1];
  const uint64_t direction = 2 * (owner - nodes - 1) + (key & 1);  // a link's ab, then its ba
  return direction < receiver_.size() ? receiver_[direction] : 0;
}

uint64_t run_windows(uint64_t end_ps, uint64_t lookahead_ps, frame_mailbox& mailbox, parallel_transport& t, fabric& f) {
  uint64_t windows = 0;
  for (uint64_t now = sc_core::sc_time_stamp().value(); now < end_ps;) {
    const uint64_t next = end_ps - now > lookahead_ps ? now + lookahead_ps : end_ps;
    start(from_ps(next - now));  // wake-ups before `next` run; those at `next` wait for the frames due then
    mailbox.exchange(t, f);
    now = next;
    ++windows;
  }
  return windows;
}

}  // namespace sluice
