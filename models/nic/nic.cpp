#include "models/nic/nic.h"

#include <algorithm>

#include "models/core/stats.h"
#include "models/link/link.h"

namespace sluice {

nic::nic(sc_core::sc_module_name name, uint32_t node_id, flow_table& flows)
    : sc_module(name),
      mtu(std::string(this->name()) + ".mtu", byte_count{1000}, "payload bytes per data frame", byte_count{1},
          byte_count{65536}),
      header_bytes(std::string(this->name()) + ".header", byte_count{0},
                   "per-frame header and trailer bytes on the wire (RoCEv2 over Ethernet: 62)", byte_count{0},
                   byte_count{1024}),
      port("port0", 0, (static_cast<uint64_t>(0x02) << 40) | (static_cast<uint64_t>(node_id) << 8) | 0xFF,
           std::string(this->name()) + ".port0"),
      node_id_(node_id),
      flows_(flows) {
  port.attach(this, this);
  const std::string me = this->name();
  add_stat(me, "frames_received", "frames", "data frames that arrived at this NIC (misdelivered ones included)",
           [this] { return static_cast<double>(rx_frames_); });
  add_stat(me, "misdelivered", "frames", "data frames that arrived here for another NIC or an unknown flow",
           [this] { return static_cast<double>(misdelivered_); });
  for (int i = 0; i < num_priorities; ++i) {
    const std::string prio = me + ".prio" + std::to_string(i);
    add_stat(prio, "frames_sent", "frames", "data frames sent on this priority",
             [this, i] { return static_cast<double>(frames_sent_[i]); });
    add_stat(prio, "bytes_sent", "bytes", "wire bytes sent on this priority",
             [this, i] { return static_cast<double>(bytes_sent_[i]); });
  }
}

void nic::add_flow(uint32_t flow_id) {
  rate_limiter_if* l = &limiters_.emplace(flow_id, pacing_limiter(data_rate{0})).first->second;
  pending_.push_back(sender{flow_id, l});
}

void nic::start_of_simulation() {
  // By start time; flows starting together keep the order they were added in.
  std::stable_sort(pending_.begin(), pending_.end(), [this](const sender& a, const sender& b) {
    return flows_[a.flow_id].spec.start < flows_[b.flow_id].spec.start;
  });
}

void nic::activate(uint64_t now_ps) {
  while (next_pending_ < pending_.size() && to_ps(flows_[pending_[next_pending_].flow_id].spec.start) <= now_ps)
    senders_.push_back(pending_[next_pending_++]);
}

uint64_t nic::next_start_ps() const {
  return next_pending_ < pending_.size() ? to_ps(flows_[pending_[next_pending_].flow_id].spec.start) : never_ps;
}

nic::sender* nic::find_sender(uint32_t flow_id) {
  for (std::vector<sender>* list : {&pending_, &senders_})
    for (sender& s : *list)
      if (s.flow_id == flow_id) return &s;
  return nullptr;
}

rate_limiter_if& nic::limiter(uint32_t flow_id) {
  auto it = limiters_.find(flow_id);
  if (it == limiters_.end())
    throw config_error(std::string(name()) + ": flow " + std::to_string(flow_id) + " is not sent by this NIC");
  if (auto bound = bound_limiters_.find(flow_id); bound != bound_limiters_.end()) return *bound->second;
  return it->second;
}

void nic::bind_limiter(uint32_t flow_id, rate_limiter_if& replacement) {
  sender* s = find_sender(flow_id);
  if (!s || limiters_.find(flow_id) == limiters_.end())
    throw config_error(std::string(name()) + ": flow " + std::to_string(flow_id) + " is not sent by this NIC");
  s->limiter = &replacement;
  bound_limiters_[flow_id] = &replacement;
}

data_rate nic::line_rate() const {
  const link* l = port.attached_link();
  return l ? l->current_rate() : data_rate{1e12};
}

uint64_t nic::ready_ps(const sender& s, uint64_t now_ps) const {
  const flow_spec& f = flows_[s.flow_id].spec;
  uint64_t t = std::max(s.limiter->next_send_ps(), to_ps(f.start));
  if (f.kind == flow_kind::onoff && t >= to_ps(f.start)) {
    uint64_t on = to_ps(f.on), period = on + to_ps(f.off);
    uint64_t phase = (t - to_ps(f.start)) % period;
    if (phase >= on) t += period - phase;  // wait for the next on-period
  }
  return t;
}

tlm::tlm_generic_payload* nic::next_frame(const mac_port& mac, uint64_t now_ps, uint64_t& retry_ps) {
  activate(now_ps);
  retry_ps = std::min(retry_ps, next_start_ps());
  const std::size_t n = senders_.size();
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t i = (next_ + k) % n;
    sender& s = senders_[i];
    const flow& f = flows_[s.flow_id];
    if (mac.paused(f.spec.priority, now_ps)) {
      retry_ps = std::min(retry_ps, mac.pause_end_ps(f.spec.priority));
      continue;
    }
    uint64_t ready = ready_ps(s, now_ps);
    if (ready > now_ps) {
      retry_ps = std::min(retry_ps, ready);
      continue;
    }
    uint64_t payload = mtu().bytes;
    if (f.spec.kind == flow_kind::finite) payload = std::min(payload, f.spec.size - s.sent);
    tlm::tlm_generic_payload* p = packet_pool::instance().acquire();
    packet_header& h = header(*p);
    h.kind = frame_kind::data;
    h.priority = f.spec.priority;
    h.flow_id = f.id;
    h.src = node_id_;
    h.dst = f.spec.dst;
    h.payload = static_cast<uint32_t>(payload);
    h.size = static_cast<uint32_t>(payload + header_bytes().bytes);
    h.seq = s.sent;
    h.created_ps = now_ps;
    s.sent += payload;
    ++frames_sent_[h.priority];
    bytes_sent_[h.priority] += h.size;
    flows_[s.flow_id].stats.tx_bytes += payload;
    s.limiter->on_send(now_ps, h.size, f.spec.rate.bps > 0 ? f.spec.rate : line_rate());
    if (f.spec.kind == flow_kind::finite && s.sent >= f.spec.size) {
      // Finished senders leave the list, so the per-frame scans cover active flows only.
      senders_.erase(senders_.begin() + static_cast<std::ptrdiff_t>(i));
      next_ = senders_.empty() ? 0 : i % senders_.size();
    } else {
      next_ = (i + 1) % n;
    }
    return p;
  }
  return nullptr;
}

uint64_t nic::next_ready_ps(const mac_port& mac, uint64_t now_ps) const {
  uint64_t next = next_start_ps();
  for (const sender& s : senders_) {
    uint8_t prio = flows_[s.flow_id].spec.priority;
    uint64_t t = mac.paused(prio, now_ps) ? mac.pause_end_ps(prio) : ready_ps(s, now_ps);
    if (t <= now_ps) return now_ps;
    next = std::min(next, t);
  }
  return next;
}

void nic::receive_frame(tlm::tlm_generic_payload* p, int) {
  packet_header& h = header(*p);
  ++rx_frames_;
  if (h.dst != node_id_ || h.flow_id >= flows_.size()) {
    ++misdelivered_;
    p->release();
    return;
  }
  flow& f = flows_[h.flow_id];
  uint64_t now = to_ps(sc_core::sc_time_stamp());
  if (f.stats.rx_frames == 0) f.stats.first_rx_ps = now;
  ++f.stats.rx_frames;
  f.stats.rx_bytes += h.payload;
  f.stats.last_rx_ps = now;
  if (f.spec.kind == flow_kind::finite && f.stats.rx_bytes >= f.spec.size && !f.stats.completed()) {
    f.stats.completed_ps = std::max<uint64_t>(now, 1);
    if (completion_hook_) completion_hook_(f.id);
  }
  p->release();
}

}  // namespace sluice
