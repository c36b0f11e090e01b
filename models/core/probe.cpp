#include "models/core/probe.h"

#include <algorithm>
#include <systemc>

#include "models/core/params.h"

namespace sluice {

std::string probe_point::name() const {
  std::string n = owner ? std::string(owner->name()) + "." : std::string();
  if (scope) n += std::string(scope) + ".";
  return n + kind->leaf();
}

probe_kind::probe_kind(const char* leaf, const char* description, const char* value_meaning)
    : leaf_(leaf), description_(description), value_(value_meaning) {
  probe_registry::instance().kinds_.push_back(this);
}

void probe_kind::publish(const void* source, const probe_event& e) const {
  auto it = by_source_.find(source);
  if (it == by_source_.end()) return;
  for (const subscription& s : it->second) s.handler(*s.point, e);
}

void probe_kind::emit(const void* source, uint64_t time_ps, const frame_fields* frame, int port, int cls,
                      uint64_t value) const {
  publish(source, {time_ps, frame, port, cls, value});
}

void probe_kind::emit_frame(const void* source, uint64_t time_ps, const packet_header& h, int port) const {
  probe_event e{time_ps, &h.fields(), port, h.priority, h.size};
  e.image = h.image;
  publish(source, e);
}

probe_registry& probe_registry::instance() {
  static probe_registry registry;
  return registry;
}

void probe_registry::declare(const probe_kind& kind, const void* source, const sc_core::sc_object* owner,
                             const char* scope) {
  points_.push_back({&kind, source, owner, scope});
}

std::size_t probe_registry::subscribe(const std::string& pattern, probe_handler h, const std::string& key) {
  std::size_t matched = 0;
  for (const probe_point& p : points_) {
    if (!glob_match(pattern.c_str(), p.name().c_str())) continue;
    auto& kind = const_cast<probe_kind&>(*p.kind);  // subscriptions are the kinds' only mutable state
    kind.by_source_[p.source].push_back({&p, h});
    ++kind.subscribed_;
    ++matched;
  }
  if (matched == 0) throw config_error(key + ": '" + pattern + "' matches no probe point (see `sluice probes`)");
  return matched;
}

void probe_registry::clear_subscriptions() {
  for (const probe_kind* k : kinds_) {
    auto& kind = const_cast<probe_kind&>(*k);
    kind.by_source_.clear();
    kind.subscribed_ = 0;
  }
}

std::vector<const probe_point*> probe_registry::points(const std::string& pattern) const {
  std::vector<std::pair<std::string, const probe_point*>> named;
  for (const probe_point& p : points_) {
    std::string n = p.name();
    if (glob_match(pattern.c_str(), n.c_str())) named.emplace_back(std::move(n), &p);
  }
  std::sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const probe_point*> out;
  out.reserve(named.size());
  for (auto& [n, p] : named) out.push_back(p);
  return out;
}

namespace probes {
probe_kind tx_start{"tx_start", "a frame's first bit left this MAC", "wire bytes"};
probe_kind rx_end{"rx_end", "a frame's last bit arrived at this MAC", "wire bytes"};
probe_kind enqueue{"enqueue", "a frame joined an egress class queue (after the congestion point saw it)",
                   "queue depth after it, bytes"};
probe_kind dequeue{"dequeue", "a frame left an egress class queue for the wire (after the congestion point saw it)",
                   "queue depth after it, bytes"};
probe_kind mark{"mark", "a congestion point marked a frame (ECN CE, InfiniBand FECN, TCD UE)",
                "the frame's ECN bits | flags << 8, after the mark"};
probe_kind drop{"drop", "a frame that arrived on this port was dropped", "cause: 0 buffer (MMU refusal), 1 no route"};
probe_kind pause_on{"pause_on", "a class's transmitter was paused (PFC XOFF took effect)",
                    "the pause's end as known now, ps"};
probe_kind pause_off{"pause_off", "a class's transmitter resumed (XON took effect, or the pause expired)",
                     "0 (time_ps is when the gate opened)"};
probe_kind credit_starved{"credit_starved", "a VL's head frame began to wait for credit", "the head frame's bytes"};
probe_kind credit_resumed{"credit_resumed", "a VL's wait for credit ended", "the wait, ps"};
probe_kind feedback_sent{"feedback_sent", "a congestion or notification point sent a feedback frame", "wire bytes"};
probe_kind feedback_received{"feedback_received", "feedback about one of this NIC's flows arrived",
                             "1 if a reaction point took it, 0 if none"};
probe_kind rate_change{"rate_change", "a flow's rate limit changed (frame: null; flow_id: the flow)",
                       "the new rate, bit/s (0: unlimited)"};
}  // namespace probes

}  // namespace sluice
