#include "models/link/pfc.h"

#include <algorithm>
#include <cmath>

#include "models/core/invariant.h"
#include "models/core/probe.h"
#include "models/core/stats.h"
#include "models/link/mac_port.h"

namespace sluice {
namespace {
double ns_of(const sc_core::sc_time& t) { return static_cast<double>(to_ps(t)) / 1e3; }

const stat_desc generator_stats[] = {
    {"frames_sent", "frames", "PFC frames this port put on the wire (XOFF, refresh and XON merged)",
     [](const void* m, int) { return static_cast<double>(stat_model<pfc>(m).frames_sent()); }, stat_kind::counter},
};
const stat_desc receiver_stats[] = {
    {"frames_received", "frames", "PFC frames this port received",
     [](const void* m, int) { return static_cast<double>(stat_model<pfc>(m).frames_received()); }, stat_kind::counter},
};
// Per priority, named under the port ("sw0.port3.prio3.pause_sent") beside its queue statistics.
const stat_desc priority_stats[] = {
    {"pause_received", "frames", "PFC frames received pausing this priority (non-zero quanta)",
     [](const void* m, int k) { return static_cast<double>(stat_model<pfc>(m).pause_received(k)); },
     stat_kind::counter},
    {"resume_received", "frames", "PFC frames received resuming this priority (zero quanta)",
     [](const void* m, int k) { return static_cast<double>(stat_model<pfc>(m).resume_received(k)); },
     stat_kind::counter},
    {"paused_time", "ns", "time this priority was held paused at this port's transmitter",
     [](const void* m, int k) { return ns_of(stat_model<pfc>(m).paused_time(k, sc_core::sc_time_stamp())); },
     stat_kind::counter},
};
const stat_desc priority_generator_stats[] = {
    {"pause_sent", "frames", "PFC frames on the wire that paused this priority upstream (new XOFF)",
     [](const void* m, int k) { return static_cast<double>(stat_model<pfc>(m).xoff_sent(k)); }, stat_kind::counter},
    {"refresh_sent", "frames", "PFC frames on the wire that refreshed this priority's pause",
     [](const void* m, int k) { return static_cast<double>(stat_model<pfc>(m).refresh_sent(k)); }, stat_kind::counter},
    {"resume_sent", "frames", "PFC frames on the wire that resumed this priority (XON)",
     [](const void* m, int k) { return static_cast<double>(stat_model<pfc>(m).xon_sent(k)); }, stat_kind::counter},
};
const stat_desc watchdog_stats[] = {
    {"watchdog_storms", "storms", "times the PFC watchdog found this priority paused for its detection time",
     [](const void* m, int k) { return static_cast<double>(stat_model<pfc>(m).watchdog_storms(k)); },
     stat_kind::counter},
    {"watchdog_restores", "storms",
     "pause storms of this priority the watchdog ended (no pause for its restoration time)",
     [](const void* m, int k) { return static_cast<double>(stat_model<pfc>(m).watchdog_restores(k)); },
     stat_kind::counter},
    {"watchdog_ignored", "frames", "pausing PFC frames the watchdog did not honour (action ignore-pause)",
     [](const void* m, int k) { return static_cast<double>(stat_model<pfc>(m).watchdog_ignored(k)); },
     stat_kind::counter},
};
const param_spec<sc_core::sc_time> response_spec{
    "response",
    "delay from a PFC frame's arrival to the pause taking effect (MAC/PHY reaction)",
    sc_core::SC_ZERO_TIME,
    sc_core::SC_ZERO_TIME,
    sc_core::sc_time(1, sc_core::SC_MS),
    param_change::live};
const param_spec<uint64_t> quanta_spec{
    "quanta", "pause time in XOFF frames, in quanta of 512 bit times", 0xFFFF, 1, 0xFFFF, param_change::live};
const param_spec<double> refresh_spec{
    "refresh",         "re-send XOFF after this fraction of the pause time while still congested", 0.5, 0.01, 1.0,
    param_change::live};
// SONiC's PFC watchdog defaults: detection and restoration 200 ms (docs/models/pfc.md).
const choice_spec watchdog_action_spec{
    "watchdog.action",
    "PFC watchdog: what a priority paused for watchdog.detect does until restored (off: no watchdog; drop: its "
    "egress queue drops what it holds and receives; ignore-pause: it sends regardless of pause frames)",
    "off",
    {"off", "drop", "ignore-pause"}};
const param_spec<sc_core::sc_time> watchdog_detect_spec{
    "watchdog.detect", "PFC watchdog: a priority paused without a break this long is in a pause storm",
    sc_core::sc_time(200, sc_core::SC_MS), sc_core::sc_time(1, sc_core::SC_NS), sc_core::sc_time(10, sc_core::SC_SEC)};
const param_spec<sc_core::sc_time> watchdog_restore_spec{
    "watchdog.restore", "PFC watchdog: a storm ends once no pausing frame has arrived for this long",
    sc_core::sc_time(200, sc_core::SC_MS), sc_core::sc_time(1, sc_core::SC_NS), sc_core::sc_time(10, sc_core::SC_SEC)};
}  // namespace

// A port keeps its PFC even when its MAC is gated by another component (InfiniBand credits):
// every PFC parameter is then inert. The generator's (quanta, refresh) are inert when its buffer
// never asks for XOFF; the receiver's (the watchdog; a NIC's response) when the peer never sends a
// pausing frame. A switch port's response stays: it also sets the tau of TCD's max(Ton) there.
std::string pfc::inert_reason(const void* model, const param_base& p) {
  const pfc& f = *static_cast<const pfc*>(model);
  const flow_control_if* gate = f.mac_.flow_control();
  if (gate && gate != &f)
    return gate->layer() == link_layer::ib ? "PFC on an InfiniBand port, which has credit flow control"
                                           : "the port's MAC is gated by another flow-control component";
  const std::string leaf = p.leaf();
  if (leaf == "quanta" || leaf == "refresh") {
    const std::string why = f.never_pauses();
    return why.empty() ? why : why + ": this port sends no PFC frame";
  }
  const bool receiver = leaf.compare(0, 9, "watchdog.") == 0 || (leaf == "response" && !f.buffer_);
  if (!receiver || !f.peer_) return "";
  const std::string why = f.peer_->never_pauses();
  return why.empty() ? why : why + ": nothing pauses " + f.port_name();
}

std::string pfc::port_name() const {
  const sc_core::sc_object* port = get_parent_object();
  return port ? port->name() : name();
}

std::string pfc::never_pauses() const {
  if (!buffer_) return port_name() + " sends no PFC frame (no buffer behind it: a NIC's port)";
  return buffer_->never_pauses();
}

pfc::pfc(sc_core::sc_module_name name, mac_port& mac, int classes, ingress_state_if* buffer)
    : sc_module(name), response(this, response_spec), mac_(mac), buffer_(buffer), classes_(classes) {
  if (classes < 1 || classes > pfc_priorities)
    throw config_error(std::string(this->name()) + ": PFC carries 8 priorities; the port has " +
                       std::to_string(classes) + " classes");
  response.inert_when(inert_reason, this);
  if (buffer_) {
    generator_ = std::make_unique<generator_state[]>(classes_);
    quanta = std::make_unique<param<uint64_t>>(this, quanta_spec);
    refresh = std::make_unique<param<double>>(this, refresh_spec);
    watchdog_action = std::make_unique<choice_param>(this, watchdog_action_spec);
    watchdog_detect = std::make_unique<param<sc_core::sc_time>>(this, watchdog_detect_spec);
    watchdog_restore = std::make_unique<param<sc_core::sc_time>>(this, watchdog_restore_spec);
    quanta->inert_when(inert_reason, this);
    refresh->inert_when(inert_reason, this);
    watchdog_action->inert_when(inert_reason, this);
    // The watchdog's times do nothing while it is off.
    for (param_base* p : std::initializer_list<param_base*>{watchdog_detect.get(), watchdog_restore.get()})
      p->inert_when(
          [](const void* m, const param_base& self) -> std::string {
            const pfc& f = *static_cast<const pfc*>(m);
            std::string why = inert_reason(m, self);
            if (why.empty() && (*f.watchdog_action)() == "off") why = f.watchdog_action->name() + " is 'off'";
            return why;
          },
          this);
    add_stats(*this, generator_stats, this);
  }
  add_stats(*this, receiver_stats, this);
  probe_registry::instance().declare(probes::pause_on, this, this);
  probe_registry::instance().declare(probes::pause_off, this, this);
  const sc_core::sc_object& port = get_parent_object() ? *get_parent_object() : *this;
  add_stats(port, priority_stats, this, classes_);
  if (buffer_) add_stats(port, priority_generator_stats, this, classes_);
  if (buffer_) add_stats(port, watchdog_stats, this, classes_);
}

void pfc::start_of_simulation() {
  if (!watchdog_action) return;
  const std::string a = (*watchdog_action)();
  action_ = a == "drop" ? storm_action::drop : a == "ignore-pause" ? storm_action::ignore_pause : storm_action::off;
  detect_ps_ = to_ps((*watchdog_detect)());
  restore_ps_ = to_ps((*watchdog_restore)());
}

byte_count pfc::required_headroom(data_rate rate, sc_core::sc_time delay, sc_core::sc_time peer_response,
                                  uint64_t max_frame) {
  double in_flight = (2.0 * delay.to_seconds() + peer_response.to_seconds()) * rate.bps / 8.0;
  double bytes = in_flight + 3.0 * static_cast<double>(max_frame) + 64;
  return byte_count{static_cast<uint64_t>(std::ceil(bytes / 1024.0)) * 1024};
}

data_rate pfc::wire_rate() const { return mac_.wire().current_rate(); }

void pfc::request(int cls, uint16_t q, reason why) {
  pending_.class_enable |= static_cast<uint8_t>(1u << cls);
  pending_.quanta[cls] = q;  // a newer request for the same priority wins
  // ...but a refresh merged into a waiting XOFF leaves it an XOFF: that frame starts the pause.
  if (!(why == reason::refresh && pending_why_[cls] == reason::xoff)) pending_why_[cls] = why;
  mac_.pfc_frame_waits();
  mac_.kick();
}

void pfc::pause_upstream(int cls) {
  request(cls, static_cast<uint16_t>((*quanta)()), reason::xoff);
  if (!refresh_armed_) schedule_refresh();
}

void pfc::resume_upstream(int cls) { request(cls, 0, reason::xon); }

tlm::tlm_generic_payload* pfc::build_control_frame(uint64_t now_ps) {
  tlm::tlm_generic_payload* p = packet_pool::instance().acquire(true);
  packet_header& h = header(*p);
  h.kind = frame_kind::pfc;
  h.size = pfc_frame_bytes;
  h.created_ps = now_ps;
  encode_pfc(pending_, mac_.mac_address(), *h.image);
  // The classes in the frame are those with a reason (request sets both).
  for (unsigned m = pending_.class_enable; m != 0; m &= m - 1) {
    const int i = __builtin_ctz(m);
    switch (pending_why_[i]) {  // requests come from a generating port (its buffer) only
      case reason::xoff:
        ++generator_[i].xoff_sent;
        break;
      case reason::refresh:
        ++generator_[i].refresh_sent;
        break;
      case reason::xon:
        ++generator_[i].xon_sent;
        break;
      case reason::none:
        break;
    }
    pending_why_[i] = reason::none;
  }
  pending_ = pfc_request{};
  ++frames_sent_;
  return p;
}

// One timer serves the refresh and the watchdog: each due deadline is handled, then the earlier
// of those left is armed (a schedule later than a pending one is ignored by the queue).
void pfc::on_timer() {
  const uint64_t now = now_ps();
  if (refresh_armed_ && refresh_due_ps_ <= now) send_refresh();
  if (action_ != storm_action::off && watchdog_due_ps_ <= now) {
    watchdog_due_ps_ = never_ps;
    arm_watchdog(watchdog_look(now));
  }
  if (refresh_armed_) event_queue::instance().schedule(this, refresh_due_ps_);
  if (watchdog_due_ps_ != never_ps) event_queue::instance().schedule(this, watchdog_due_ps_);
}

void pfc::arm_watchdog(uint64_t at_ps) {
  if (at_ps >= watchdog_due_ps_) return;
  watchdog_due_ps_ = at_ps;
  event_queue::instance().schedule(this, at_ps);
}

// Storms begin where a pause has lasted `detect` without a break, and end once the pauses
// received (honoured or not) have left the priority unpaused for `restore`. Returns when to look
// next.
uint64_t pfc::watchdog_look(uint64_t now_ps) {
  uint64_t next = never_ps;
  for (int i = 0; i < classes_; ++i) {
    const pause_state& s = state_[i];
    generator_state& g = generator_[i];  // a watchdog is a generating port's
    if (!g.storm) {
      if (!paused(i, now_ps)) continue;
      if (now_ps - s.from_ps < detect_ps_) {
        next = std::min(next, s.from_ps + detect_ps_);
        continue;
      }
      if (storm_listener_ && !storm_listener_->holds_frames(i)) {  // an empty queue loses nothing: look later
        next = std::min(next, now_ps + detect_ps_);
        continue;
      }
      g.storm = true;
      ++g.storms;
      if (action_ == storm_action::ignore_pause) {
        state_[i].until_ps = now_ps;  // as if resumed: the gate opens now
        mac_.wake_at(now_ps);
        if (watch_) event_queue::instance().schedule(watch_.get(), now_ps);  // pause_off for the probes
      } else if (storm_listener_) {
        storm_listener_->on_pause_storm(i, true);
      }
    } else if (now_ps >= g.rx_pause_end_ps && now_ps - g.rx_pause_end_ps >= restore_ps_) {
      g.storm = false;
      ++g.restores;
      if (action_ == storm_action::drop && storm_listener_) storm_listener_->on_pause_storm(i, false);
      continue;
    }
    next = std::min(next, g.rx_pause_end_ps + restore_ps_);  // later than now
  }
  return next;
}

// Re-sends XOFF for every priority still paused, before the pause expires.
void pfc::send_refresh() {
  refresh_armed_ = false;
  const int port = mac_.index();
  bool any = false;
  for (int i = 0; i < classes_; ++i) {
    switch (buffer_->recheck_pause(port, i)) {
      case ingress_state_if::pause_check::not_paused:
        continue;
      case ingress_state_if::pause_check::resumes_now:
        resume_upstream(i);
        continue;
      case ingress_state_if::pause_check::still_paused:
        break;
    }
    request(i, static_cast<uint16_t>((*quanta)()), reason::refresh);
    any = true;
  }
  if (any) schedule_refresh();
}

void pfc::schedule_refresh() {
  // Never faster than the wire can carry PFC frames (a tiny quanta would otherwise spin).
  const data_rate rate = wire_rate();
  const sc_core::sc_time pause = pause_duration(static_cast<uint16_t>((*quanta)()), rate);
  const sc_core::sc_time floor = rate.serialization(pfc_frame_bytes);
  refresh_armed_ = true;
  refresh_due_ps_ = now_ps() + to_ps(std::max(pause * (*refresh)(), floor));
  event_queue::instance().schedule(this, refresh_due_ps_);
}

void pfc::share_pauses_end(uint64_t& copy) {
  copy = never_ps;
  if (pauses_end_) return;
  copy = 0;
  for (const pause_state& s : state_) copy = std::max(copy, s.until_ps);
  pauses_end_ = &copy;
}

void pfc::unshare_pauses_end(const uint64_t& copy) {
  if (pauses_end_ == &copy) pauses_end_ = nullptr;
}

inline void pfc::apply_pause(int cls, uint64_t effective_ps, uint64_t until_ps) {  // inline: once a class a frame
  pause_state& s = state_[cls];
  if (s.from_ps <= effective_ps && effective_ps < s.until_ps) {
    s.until_ps = std::max(until_ps, effective_ps);  // refresh or resume an ongoing pause
  } else {
    if (s.until_ps > s.from_ps) s.prev_until_ps = s.until_ps;
    if (s.until_ps < s.from_ps) invariant_failed(name(), cls, "a pause interval ends before it began");
    s.closed_ps += s.until_ps - s.from_ps;
    s.from_ps = effective_ps;
    s.until_ps = until_ps;
  }
  if (pauses_end_) *pauses_end_ = std::max(*pauses_end_, s.until_ps);
}

void pfc::on_control_frame(tlm::tlm_generic_payload& frame) {
  pfc_request r;
  const packet_header& h = header(frame);
  if (!h.image || !decode_pfc(*h.image, r)) return;
  ++frames_received_;
  const uint64_t effective = now_ps() + to_ps(response());
  // The wire's rate is asked at the first class the frame pauses: an XON (half the frames) ends
  // its pause at `effective` and needs neither the rate (two calls) nor pause_ps's division.
  data_rate rate{};
  bool shortened = false, watch = false;
  const bool watching = probes::pause_on.on() || probes::pause_off.on();
  // The classes the frame names, in order (a frame names one or two of eight).
  for (unsigned m = r.class_enable & ((1u << classes_) - 1); m != 0; m &= m - 1) {
    const int i = __builtin_ctz(m);
    uint64_t until = effective;
    if (r.quanta[i]) {
      if (rate.bps == 0) rate = wire_rate();
      until += pause_ps(r.quanta[i], rate);
    }
    pause_state& s = state_[i];
    ++(r.quanta[i] ? s.xoff_received : s.xon_received);
    if (action_ != storm_action::off) {  // a watchdog, which only a generating port has
      generator_state& g = generator_[i];
      g.rx_pause_end_ps = until;  // an XON ends it at `effective`
      if (r.quanta[i]) {
        if (g.storm && action_ == storm_action::ignore_pause) {
          ++g.ignored;
          continue;
        }
        if (!paused(i, effective)) arm_watchdog(effective + detect_ps_);  // a new pause: look when it may be a storm
      }
    }
    shortened |= until < s.until_ps;
    // The watcher must look at `effective` if the gate may change then: a pause not yet
    // announced begins, or an announced one ends earlier. One that only grows is looked at
    // when its old end comes (the watcher is due then already).
    if (watching) watch |= announced_ >> i & 1 ? until < s.until_ps : until > effective;
    apply_pause(i, effective, until);
  }
  if (watch) {
    if (!watch_) watch_ = std::make_unique<pause_watch>(*this);
    event_queue::instance().schedule(watch_.get(), effective);
  }
  // A resume (or a shorter pause) may let frames go at `effective`: look again then. A longer
  // pause needs no wake-up: the source finds the priority paused and asks again at its end.
  if (shortened) mac_.wake_at(effective);
}

void pfc::watch_pauses() {
  const uint64_t now = now_ps();
  uint64_t next = never_ps;
  for (int i = 0; i < classes_; ++i) {
    const pause_state& s = state_[i];
    const bool was = announced_ >> i & 1;
    if (paused(i, now) && !was) {
      announced_ |= 1u << i;
      if (probes::pause_on.on()) probes::pause_on.emit(this, s.from_ps, nullptr, mac_.index(), i, s.until_ps);
    } else if (!paused(i, now) && was) {
      announced_ &= ~(1u << i);
      // The interval that ended: [from, until) if it ran out, or the previous one if a new pause
      // is already due (from in the future).
      const uint64_t end = s.from_ps > now ? s.prev_until_ps : s.until_ps;
      if (probes::pause_off.on()) probes::pause_off.emit(this, end, nullptr, mac_.index(), i, 0);
    }
    if (announced_ >> i & 1)
      next = std::min(next, s.until_ps);
    else if (s.from_ps > now && s.until_ps > s.from_ps)
      next = std::min(next, s.from_ps);
  }
  if (next != never_ps) event_queue::instance().schedule(watch_.get(), next);
}

uint64_t pfc::off_end_ps(int cls, uint64_t now_ps) const {
  const pause_state& s = state_[cls];
  // A pause not yet in effect (response delay) or an empty one (XON while open) ends no OFF period.
  if (s.from_ps > now_ps || s.until_ps == s.from_ps) return std::min(now_ps, s.prev_until_ps);
  return std::min(now_ps, s.until_ps);
}

flow_control_if::on_off_loop pfc::on_off(int cls) const {
  const data_rate rate = wire_rate();
  const uint64_t tau =
      2 * to_ps(mac_.wire().propagation()) + to_ps(response()) + to_ps(rate.serialization(pfc_frame_bytes));
  return {buffer_ ? buffer_->xon_gap_bytes(mac_.index(), cls) : 0, tau, rate.bps};
}

}  // namespace sluice
