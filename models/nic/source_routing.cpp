#include "models/nic/source_routing.h"

#include <algorithm>

#include "models/protocol/cnm_frame.h"

namespace sluice {

source_routing_params::source_routing_params(const sc_core::sc_object* nic)
    : routing(nic,
              [] {
                return choice_spec{"routing",
                                   "who chooses a data frame's path among the equal-cost ones: the switches "
                                   "(fabric), or this NIC by a path id per frame, with a rate limiter per path (r3c2)",
                                   "fabric",
                                   {"fabric", "r3c2"}};
              }),
      paths(nic,
            [] {
              return param_spec<uint64_t>{"r3c2.paths",
                                          "path ids a flow may use (0: every tree the fabric offers, e.g. (k/2)^2 on "
                                          "a 3-tier fat tree; at most that many)",
                                          0, 0, 255};
            }),
      max_active(nic,
                 [] {
                   return param_spec<uint64_t>{
                       "r3c2.max_active", "paths a flow uses at once (the first, and those activated on congestion)", 4,
                       1, 255};
                 }),
      aging(nic,
            [] {
              return param_spec<sc_core::sc_time>{
                  "r3c2.aging",
                  "a path stays hot this long after a congestion notification about it: it is used after the cool "
                  "paths and not activated",
                  sc_core::sc_time(100, sc_core::SC_US), sc_core::sc_time(1, sc_core::SC_NS),
                  sc_core::sc_time(1, sc_core::SC_SEC)};
            }),
      rate_control(nic, [] {
        return param_spec<bool>{"r3c2.rate_control",
                                "each path's limiter is driven by its own reaction point (the scheme's, <nic>.rp); "
                                "false: route only, no limiter is cut",
                                true, false, true};
      }) {}

multipath_flow::multipath_flow(const flow& f, const config& c, reaction_point_maker* maker)
    : flow_(f), cfg_(c), maker_(maker), paths_(c.paths) {
  for (path_state& p : paths_) p.limiter.on_change([this] { changed(); });
  activate(cfg_.first, 0);
}

void multipath_flow::activate(uint32_t path, uint64_t now) {
  path_state& p = paths_[path];
  if (maker_ && !p.rp) p.rp = maker_->make(flow_, p.limiter);
  p.last_send_ps = now;  // a fresh path is not idle
  active_.push_back(static_cast<uint8_t>(path));
}

int multipath_flow::pick(uint64_t now) const {
  for (int pass = 0; pass < 2; ++pass)  // cool paths first, then hot ones; each in activation order
    for (uint8_t a : active_) {
      const path_state& p = paths_[a];
      if (hot(p, now) == (pass == 1) && p.limiter.next_send_ps() <= now) return a;
    }
  return -1;
}

uint64_t multipath_flow::next_send_ps() const {
  uint64_t earliest = ~uint64_t{0};
  for (uint8_t a : active_) earliest = std::min(earliest, paths_[a].limiter.next_send_ps());
  return std::max(earliest, pace_.next_send_ps());
}

void multipath_flow::on_send(uint64_t now, uint64_t bytes, data_rate source_rate) {
  const int p = pick(now);
  chosen_ = p >= 0 ? static_cast<uint32_t>(p) : active_.front();
  path_state& s = paths_[chosen_];
  s.limiter.on_send(now, bytes, source_rate);
  s.last_send_ps = now;
  ++s.frames;
  pace_.on_send(now, bytes, source_rate);
}

void multipath_flow::set_rate(data_rate r) {
  for (path_state& p : paths_) p.limiter.set_rate(r);
}

data_rate multipath_flow::rate() const {
  double sum = 0;
  for (uint8_t a : active_) {
    const double r = paths_[a].limiter.rate().bps;
    if (r <= 0) return data_rate{0};
    sum += r;
  }
  return data_rate{sum};
}

data_rate multipath_flow::target_rate() const {
  double sum = 0;
  for (uint8_t a : active_)
    if (paths_[a].rp) sum += paths_[a].rp->target_rate().bps;
  return data_rate{sum};
}

void multipath_flow::tag(packet_header& h) {
  h.path = static_cast<uint8_t>(chosen_ + 1);
  if (paths_[chosen_].rp) paths_[chosen_].rp->tag(h);
}

void multipath_flow::on_send(const packet_header& h, uint64_t now) {
  if (h.path && paths_[h.path - 1].rp) paths_[h.path - 1].rp->on_send(h, now);
}

void multipath_flow::on_feedback(const packet_header& h, uint64_t now) {
  const uint32_t path = h.path ? h.path - 1u : cfg_.first;
  if (path >= paths_.size()) return;  // not a path of this flow
  path_state& p = paths_[path];
  if (p.rp) p.rp->on_feedback(h, now);
  if (h.kind == frame_kind::ack) return;  // a transport ACK says nothing about congestion
  ++notifications_;
  p.hot_until_ps = now + cfg_.aging_ps;
  cnm_pdu cnm;
  p.cpid = h.kind == frame_kind::cnm && h.image && decode_cnm(*h.image, cnm) ? cnm.cpid : 0;
  if (p.cpid && shared_hotspot(path, p.cpid, now)) return;  // no other path avoids it: rate control's
  spread_from_hot(now);
}

// Whether another hot active path's latest CNM named the same congestion point: a hotspot that
// paths of different trees share ("where is the hotspot?", [R3C2]), which another path would
// reach too.
bool multipath_flow::shared_hotspot(uint32_t path, uint64_t cpid, uint64_t now) const {
  for (uint8_t a : active_)
    if (a != path && hot(paths_[a], now) && paths_[a].cpid == cpid) return true;
  return false;
}

// Every active path is hot: activate a cool one, freeing the slot of an added path that carried
// nothing for r3c2.aging if the flow has max_active paths. Paths are tried from the first on, so
// that the lowest tier's uplink changes first and the new path shares the fewest links.
void multipath_flow::spread_from_hot(uint64_t now) {
  for (uint8_t a : active_)
    if (!hot(paths_[a], now)) return;
  if (active_.size() >= cfg_.max_active)
    active_.erase(std::remove_if(active_.begin() + 1, active_.end(),
                                 [&](uint8_t a) { return now - paths_[a].last_send_ps >= cfg_.aging_ps; }),
                  active_.end());
  if (active_.size() >= cfg_.max_active) return;  // rate control alone takes it
  for (uint32_t k = 1; k < cfg_.paths; ++k) {
    const uint32_t q = (cfg_.first + k) % cfg_.paths;
    if (hot(paths_[q], now) || std::find(active_.begin(), active_.end(), q) != active_.end()) continue;
    activate(q, now);
    ++activations_;
    changed();  // a new path may send now
    return;
  }
}

}  // namespace sluice
