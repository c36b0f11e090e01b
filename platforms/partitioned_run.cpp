#include "platforms/partitioned_run.h"

#include <algorithm>
#include <cstring>

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
}  // namespace

frame_mailbox::frame_mailbox(const fabric& f, const std::vector<uint32_t>& owner, int parts)
    : out_(static_cast<std::size_t>(parts)) {
  const topology_spec& t = f.spec().topology;
  receiver_.resize(2 * t.links.size());
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    receiver_[2 * i] = owner[f.node_id(t.links[i].b)];
    receiver_[2 * i + 1] = owner[f.node_id(t.links[i].a)];
  }
}

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
