#include "models/cc/firmware/firmware_rp.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include "models/cc/firmware/firmware_guard.h"
#include "models/cc/firmware/firmware_library.h"
#include "models/cc/rate_limiter.h"
#include "models/core/event_queue.h"
#include "models/core/random.h"
#include "models/core/ring.h"
#include "models/core/stats.h"
#include "models/protocol/cnm_frame.h"
#include "models/protocol/roce_frame.h"

// The HAL's opaque types: what an event carries and what a handler answers.
struct sluice_fw_event {
  uint64_t time_ps = 0, bytes = 0, seq = 0, cpid = 0, rtt_ps = 0;
  int32_t qoff = 0, qdelta = 0;
  uint32_t fb = 0, ecn = 0, count = 1, type = 0, cause = 0;
};
struct sluice_fw_result {
  double rate_bps = 0;
  uint64_t window = 0, timer_ps = 0;
  uint32_t fraction = 0;
  bool has_rate = false, rate_is_fraction = false, has_window = false, probe = false, has_timer = false;
};

namespace sluice {
namespace {
using sc_core::sc_time;

const char* const event_names[SLUICE_FW_EV_COUNT] = {"TX",   "ACK", "NACK",       "CNP",      "CNM",   "BCN", "FECN",
                                                     "BECN", "RTT", "FLOW_START", "FLOW_END", "TIMER", "IRQ"};
const char* const event_keys[SLUICE_FW_EV_COUNT] = {"tx",   "ack", "nack",       "cnp",      "cnm",   "bcn", "fecn",
                                                    "becn", "rtt", "flow_start", "flow_end", "timer", "irq"};
// Leaves the NIC declares under firmware.: a firmware's parameter or counter may not take them.
const char* const reserved[] = {"latency", "units", "queue", "watchdog", "events", "coalesced", "queue_peak"};

void check_latency(const std::string& name, const std::string& text) { parse_firmware_latency(name, text); }
void check_library(const std::string& name, const std::string& text) {
  if (text.find_first_of("\n\r") != std::string::npos) throw config_error(name + ": a path has no line breaks");
}

class firmware_engine;

// Memory handed to firmware: zeroed, padding included, aligned as operator new aligns (16).
std::unique_ptr<unsigned char[]> zeroed(std::size_t bytes) {
  return std::unique_ptr<unsigned char[]>(new unsigned char[bytes ? bytes : 1]());
}

// One flow's slot: its context memory, its timer, and its RTT probe.
class firmware_flow final : public reaction_point_if, public timed_client {
 public:
  firmware_flow(firmware_engine& e, const flow& f, rate_limiter_if& limiter, std::size_t context_bytes)
      : engine(e), spec(f), limiter(limiter), context(zeroed(context_bytes)) {}
  void on_feedback(const packet_header& h, uint64_t now) override;
  void on_send(const packet_header& h, uint64_t now) override;
  void on_timer() override;

  firmware_engine& engine;
  const flow& spec;
  rate_limiter_if& limiter;
  std::unique_ptr<unsigned char[]> context;  // flow_context_size bytes, zeroed
  bool started = false, probe_wanted = false, probe_out = false;
  uint64_t probe_end = 0, probe_sent_ps = 0;
  uint64_t last_timer_ps = UINT64_MAX, same_time_timers = 0;  // a timer re-armed at its own time, again and again
};

// A device's firmware instance: its state, the service model (units, queue, coalescing) and the
// HAL's functions; on a NIC also the reaction_point_maker the NIC asks for each flow's slot. A
// device without a MAC of its own (a switch) has no flows: its init runs at time 0 and its
// events are its interrupts.
class firmware_engine final : public reaction_point_maker, public device_firmware, public timed_client {
 public:
  firmware_engine(const sc_core::sc_object& nic, const mac_port* mac, const firmware_params& p,
                  regs::register_target& regs)
      : nic_(nic), mac_(mac), params_(p), lib_(firmware_library::load(p.library(), p.library.name())) {
    const sluice_fw_descriptor& d = lib_.descriptor();
    for (uint32_t i = 0; i < d.param_count; ++i)
      for (const char* r : reserved)
        if (std::strcmp(d.params[i].name, r) == 0)
          throw config_error(p.library.name() + ": '" + lib_.path() + "' names a parameter '" + r +
                             "', which the NIC's firmware." + r + " already is");
    for (uint32_t i = 0; i < d.counter_count; ++i)
      for (const char* r : reserved)
        if (std::strcmp(d.counters[i].name, r) == 0)
          throw config_error(p.library.name() + ": '" + lib_.path() + "' names a counter '" + r +
                             "', which the NIC's firmware." + r + " already is");
    lib_.take_instance(nic.name());
    for (const param_spec<uint64_t>& s : lib_.param_specs())
      fw_params_.push_back(std::make_unique<param<uint64_t>>(&nic, s));
    counters_.assign(d.counter_count, 0);
    for (uint32_t i = 0; i < d.counter_count; ++i)
      stat_registry::instance().add(&nic, "firmware", &lib_.counter_descs()[i], 1, &counters_[i]);
    state_ = zeroed(d.state_size);
    registers = &regs;
    device_slot_ = std::make_unique<firmware_flow>(*this, no_flow(), no_limiter_, 0);
    regs.irq.connect([this](uint32_t cause, uint64_t raised_ps) { interrupt(cause, raised_ps); });
  }

  std::unique_ptr<reaction_point_if> make(const flow& f, rate_limiter_if& limiter) override {
    auto slot = std::make_unique<firmware_flow>(*this, f, limiter, lib_.descriptor().flow_context_size);
    return slot;
  }
  // The device's interrupt: an IRQ event of no flow, dated when the line was raised.
  void interrupt(uint32_t cause, uint64_t raised_ps) {
    sluice_fw_event e;
    e.type = SLUICE_FW_EV_IRQ;
    e.time_ps = raised_ps;
    e.cause = cause;
    deliver(*device_slot_, e);
  }
  // device_firmware: init at time 0, before any frame reaches the device.
  void start() override { event_queue::instance().schedule(&starter_, 0); }
  std::string mailbox_message(const std::string& message) override { return mailbox(message); }

  // The service model's settings, once the overrides are final.
  void derive_defaults() override {
    firmware_engine& self = *this;
    self.latency_ = parse_firmware_latency(params_.latency.name(), params_.latency());
    self.units_ = params_.units();
    self.queue_limit_ = params_.queue();
    self.watchdog_ms_ = static_cast<uint64_t>(std::ceil(params_.watchdog().to_seconds() * 1e3));
    self.rng_ = random_stream(random_streams::instance().seed_for(std::string(nic_.name()) + ".firmware"));
    self.slots_.assign(units_, service{});
  }

  // An event of `f`: handled at once (latency 0), served by a free unit, queued, or coalesced.
  void deliver(firmware_flow& f, const sluice_fw_event& e) {
    const uint64_t latency = latency_[e.type];
    if (latency == 0) {
      sluice_fw_result r;
      run(f, e, r);
      apply(f, e.type, r);
      arm_timer(f, r);
      return;
    }
    if (busy_ < units_) return start(f, e, latency);
    if (waiting_.size() < queue_limit_) {
      waiting_.push_back({&f, e});
      if (waiting_.size() > queue_peak.value()) queue_peak += waiting_.size() - queue_peak.value();
      return;
    }
    coalesce(f, e);
  }

  std::string mailbox(const std::string& message) {
    const sluice_fw_descriptor& d = lib_.descriptor();
    if (!d.on_mailbox) throw config_error(std::string(nic_.name()) + ": firmware '" + lib_.name() + "' has no mailbox");
    ensure_init();
    std::string reply(4096, '\0');
    uint32_t length = 0;
    sluice_fw_ctx c = context(nullptr);
    struct args {
      const sluice_fw_descriptor* d;
      sluice_fw_ctx* c;
      const std::string* in;
      std::string* out;
      uint32_t* length;
    } a{&d, &c, &message, &reply, &length};
    current_type_ = -1;
    guarded(
        [](void* p) {
          args& k = *static_cast<args*>(p);
          return k.d->on_mailbox(k.c, k.in->data(), static_cast<uint32_t>(k.in->size()), k.out->data(),
                                 static_cast<uint32_t>(k.out->size()), k.length);
        },
        &a, nullptr, "on_mailbox");
    if (length > reply.size()) fail(nullptr, "replied " + std::to_string(length) + " bytes into a 4096-byte mailbox");
    reply.resize(length);
    return reply;
  }

  [[noreturn]] void fail(const firmware_flow* f, const std::string& what) const {
    std::string msg = std::string(nic_.name()) + ": firmware '" + lib_.name() + "'";
    if (f && f != device_slot_.get())
      msg += " flow " + std::to_string(f->spec.id) + (f->spec.spec.name.empty() ? "" : " (" + f->spec.spec.name + ")");
    msg += current_type_ >= 0 ? std::string(" ") + event_names[current_type_] + " event" : std::string(" init");
    msg += " at " + format_time(from_ps(now_ps())) + ": " + what;
    SC_REPORT_ERROR("sluice/firmware", msg.c_str());
    throw std::logic_error(msg);  // only if the report's action does not throw
  }

  [[noreturn]] void timer_storm(const firmware_flow& f) {
    current_type_ = SLUICE_FW_EV_TIMER;
    fail(&f, "re-armed its timer for the time it fired at 1000 times in a row");
  }

  void arm_timer(firmware_flow& f, const sluice_fw_result& r) {
    if (!r.has_timer) return;
    // A time already past (the event waited for a unit past the firmware's deadline) fires now.
    event_queue::instance().schedule(&f, std::max(r.timer_ps, now_ps()));
  }

  // HAL services.
  static firmware_engine& of(const sluice_fw_ctx* c) { return *static_cast<firmware_engine*>(c->sim); }
  uint64_t param_value(uint32_t id) const {
    const sluice_fw_descriptor& d = lib_.descriptor();
    for (uint32_t i = 0; i < d.param_count; ++i)
      if (d.params[i].id == id) return (*fw_params_[i])();
    fail(current_flow_, "asked for parameter id " + std::to_string(id) + ", which it does not declare");
  }
  void count(uint32_t id, uint64_t delta) {
    const sluice_fw_descriptor& d = lib_.descriptor();
    for (uint32_t i = 0; i < d.counter_count; ++i)
      if (d.counters[i].id == id) {
        counters_[i] += delta;
        return;
      }
    fail(current_flow_, "counted counter id " + std::to_string(id) + ", which it does not declare");
  }
  // The NIC's register bank, now (handlers run in zero simulated time, at the event's time).
  // An unmapped address is the firmware's fault and stops the run; a write the register
  // refuses (read-only, locked, out of the parameter's range) answers SLUICE_FW_EREG.
  int reg_access(uint32_t address, uint32_t* value, bool write) {
    if (!registers) return SLUICE_FW_ENOREGS;
    regs::register_bank& bank = registers->bank();
    const regs::reg_status s = write ? bank.write(address, *value) : bank.read(address, *value);
    char where[16];
    std::snprintf(where, sizeof where, "%#x", address);
    if (s == regs::reg_status::address_error)
      fail(current_flow_,
           std::string(write ? "wrote" : "read") + " unmapped register " + where + " (see `sluice regs nic`)");
    return s == regs::reg_status::ok ? 0 : SLUICE_FW_EREG;
  }
  regs::register_target* registers = nullptr;
  void log(const sluice_fw_ctx* c, const char* message) {
    if (++logged_ > 100) return;
    std::clog << "sluice: firmware " << nic_.name() << " flow "
              << (c->flow_id == UINT32_MAX ? std::string("-") : std::to_string(c->flow_id)) << " at "
              << format_time(from_ps(now_ps())) << ": " << (message ? message : "")
              << (logged_ == 100 ? " (further messages from this NIC suppressed)" : "") << '\n';
  }
  double line_rate() const { return mac_ ? mac_->wire().current_rate().bps : 0; }
  uint64_t random() { return rng_.next(); }

 private:
  struct service {  // a unit's event in service
    firmware_flow* flow = nullptr;
    uint64_t done_ps = 0, order = 0;
    uint32_t type = 0;
    sluice_fw_result result;
  };
  struct waiting {
    firmware_flow* flow;
    sluice_fw_event event;
  };

  sluice_fw_ctx context(firmware_flow* f) {
    if (f == device_slot_.get()) f = nullptr;
    return sluice_fw_ctx{&hal(), state_.get(), f ? f->context.get() : nullptr, f ? f->spec.id : UINT32_MAX, this};
  }
  static const flow& no_flow() {
    static const flow none{};
    return none;
  }
  static const sluice_fw_hal& hal();

  template <typename Call>
  void guarded(Call call, void* arg, firmware_flow* f, const char* handler) {
    int ret = 0;
    current_flow_ = f;
    const guard_outcome o = guarded_call(call, arg, ret, watchdog_ms_);
    if (o.what != guard_outcome::ok) fail(f, std::string(handler) + " " + o.describe());
    if (ret != 0) fail(f, std::string(handler) + " returned error " + std::to_string(ret));
  }

  void ensure_init() {
    if (initialized_) return;
    initialized_ = true;
    const sluice_fw_descriptor& d = lib_.descriptor();
    if (!d.init) return;
    sluice_fw_ctx c = context(nullptr);
    struct args {
      const sluice_fw_descriptor* d;
      sluice_fw_ctx* c;
    } a{&d, &c};
    const int saved = current_type_;
    current_type_ = -1;
    guarded([](void* p) { return static_cast<args*>(p)->d->init(static_cast<args*>(p)->c); }, &a, nullptr, "init");
    current_type_ = saved;
  }

  // The handler, now (zero simulated time).
  void run(firmware_flow& f, const sluice_fw_event& e, sluice_fw_result& r) {
    current_type_ = static_cast<int>(e.type);
    ensure_init();
    ++events;
    const sluice_fw_descriptor& d = lib_.descriptor();
    sluice_fw_ctx c = context(&f);
    struct args {
      const sluice_fw_descriptor* d;
      sluice_fw_ctx* c;
      const sluice_fw_event* e;
      sluice_fw_result* r;
    } a{&d, &c, &e, &r};
    const bool timer = e.type == SLUICE_FW_EV_TIMER && d.on_timer;
    if (timer)
      guarded(
          [](void* p) {
            return static_cast<args*>(p)->d->on_timer(static_cast<args*>(p)->c, static_cast<args*>(p)->r);
          },
          &a, &f, "on_timer");
    else
      guarded(
          [](void* p) {
            args& k = *static_cast<args*>(p);
            return k.d->on_event(k.c, k.e, k.r);
          },
          &a, &f, "on_event");
  }

  // The results that reach the NIC when the event completes.
  void apply(firmware_flow& f, uint32_t type, const sluice_fw_result& r) {
    current_type_ = static_cast<int>(type);
    if (r.has_window)
      fail(&f, "set a window of " + std::to_string(r.window) +
                   " bytes; this NIC paces by rate (a window-limited transport is not modelled)");
    if (&f == device_slot_.get() && (r.has_rate || r.probe))
      fail(&f, std::string("set a ") + (r.has_rate ? "rate" : "probe") +
                   " in a device event, which serves no flow (write a flow's RATE register instead)");
    if (r.probe) f.probe_wanted = true;
    if (!r.has_rate) return;
    const double line = line_rate();
    double bps = r.rate_bps;
    if (r.rate_is_fraction) {
      if (r.fraction == 0) fail(&f, "set a rate of 0");
      if (r.fraction > SLUICE_FW_RATE_ONE)
        fail(&f, "set a rate above the line rate (" + std::to_string(r.fraction) + "/" +
                     std::to_string(SLUICE_FW_RATE_ONE) + ")");
      bps = line * r.fraction / SLUICE_FW_RATE_ONE;
    } else {
      if (!(bps > 0)) fail(&f, "set a rate of " + format_number(bps) + " bit/s");
      if (bps > line)
        fail(&f,
             "set a rate of " + format_rate(data_rate{bps}) + ", above the line rate " + format_rate(data_rate{line}));
    }
    f.limiter.set_rate(data_rate{bps});
  }

  void start(firmware_flow& f, const sluice_fw_event& e, uint64_t latency) {
    service* s = nullptr;
    for (service& u : slots_)
      if (!u.flow) {
        s = &u;
        break;
      }
    s->flow = &f;
    s->type = e.type;
    s->done_ps = now_ps() + latency;
    s->order = ++started_;
    s->result = sluice_fw_result{};
    ++busy_;
    run(f, e, s->result);
    arm_timer(f, s->result);
    event_queue::instance().schedule(this, s->done_ps);
  }

  void on_timer() override {
    const uint64_t now = now_ps();
    for (;;) {  // completions due, in (time, start) order
      service* next = nullptr;
      for (service& u : slots_)
        if (u.flow && u.done_ps <= now &&
            (!next || u.done_ps < next->done_ps || (u.done_ps == next->done_ps && u.order < next->order)))
          next = &u;
      if (!next) break;
      firmware_flow& f = *next->flow;
      const sluice_fw_result r = next->result;
      const uint32_t type = next->type;
      next->flow = nullptr;
      --busy_;
      apply(f, type, r);
    }
    while (busy_ < units_ && !waiting_.empty()) {
      const waiting w = waiting_.pop_front();
      refill();
      start(*w.flow, w.event, latency_[w.event.type]);
    }
    uint64_t due = UINT64_MAX;
    for (const service& u : slots_)
      if (u.flow) due = std::min(due, u.done_ps);
    if (due != UINT64_MAX) event_queue::instance().schedule(this, due);
  }

  // Queue full: fold the event into the flow's pending one of its type (counted), or make one.
  void coalesce(firmware_flow& f, const sluice_fw_event& e) {
    for (waiting& w : overflow_)
      if (w.flow == &f && w.event.type == e.type) {
        ++coalesced;
        w.event.count += e.count;
        w.event.bytes += e.bytes;
        const uint64_t first = w.event.time_ps;
        const uint64_t bytes = w.event.bytes;
        const uint32_t count = w.event.count;
        w.event = e;  // the latest fields
        w.event.time_ps = first;
        w.event.bytes = bytes;
        w.event.count = count;
        return;
      }
    overflow_.push_back({&f, e});
  }
  void refill() {
    if (overflow_.empty()) return;
    waiting_.push_back(overflow_.front());
    overflow_.erase(overflow_.begin());
  }

  struct starter final : timed_client {  // a device firmware's init, at time 0
    firmware_engine& engine;
    explicit starter(firmware_engine& e) : engine(e) {}
    void on_timer() override { engine.ensure_init(); }
  };

  const sc_core::sc_object& nic_;
  const mac_port* mac_;
  const firmware_params& params_;
  firmware_library& lib_;
  std::vector<std::unique_ptr<param<uint64_t>>> fw_params_;
  std::vector<uint64_t> counters_;
  std::unique_ptr<unsigned char[]> state_;
  std::array<uint64_t, SLUICE_FW_EV_COUNT> latency_{};
  uint64_t units_ = 1, queue_limit_ = 1, watchdog_ms_ = 1000, started_ = 0, busy_ = 0, logged_ = 0;
  std::vector<service> slots_;
  ring<waiting> waiting_;
  std::vector<waiting> overflow_;  // coalesced events waiting for queue space, one per flow and type
  random_stream rng_;
  firmware_flow* current_flow_ = nullptr;
  int current_type_ = -1;
  bool initialized_ = false;
  pacing_limiter no_limiter_{data_rate{0}};     // the device slot's: never driven
  std::unique_ptr<firmware_flow> device_slot_;  // the device's own events (IRQ, its timers)
  starter starter_{*this};

  stat_counter events{&nic_, "firmware", [] {
                        return stat_desc{"events", "events", "events the firmware handled", nullptr};
                      }};
  stat_counter coalesced{&nic_, "firmware", [] {
                           return stat_desc{
                               "coalesced", "events",
                               "events folded into an earlier one of the same flow and type while the queue was full",
                               nullptr};
                         }};
  stat_counter queue_peak{
      &nic_, "firmware", [] {
        return stat_desc{"queue_peak", "events", "most events waiting for a processing unit at once", nullptr};
      }};
};

const sluice_fw_hal& firmware_engine::hal() {
  static const sluice_fw_hal table = [] {
    sluice_fw_hal h{};
    h.size = sizeof(sluice_fw_hal);
    h.major = SLUICE_FW_HAL_MAJOR;
    h.minor = SLUICE_FW_HAL_MINOR;
    h.now_ps = [](const sluice_fw_ctx*) { return now_ps(); };
    h.random_u64 = [](const sluice_fw_ctx* c) { return of(c).random(); };
    h.log = [](const sluice_fw_ctx* c, const char* m) { of(c).log(c, m); };
    h.param = [](const sluice_fw_ctx* c, uint32_t id) { return of(c).param_value(id); };
    h.count = [](const sluice_fw_ctx* c, uint32_t id, uint64_t d) { of(c).count(id, d); };
    h.line_rate_bps = [](const sluice_fw_ctx* c) { return of(c).line_rate(); };
    h.reg_read = [](const sluice_fw_ctx* c, uint32_t a, uint32_t* v) { return of(c).reg_access(a, v, false); };
    h.reg_write = [](const sluice_fw_ctx* c, uint32_t a, uint32_t v) { return of(c).reg_access(a, &v, true); };
    h.event_type = [](const sluice_fw_event* e) { return e->type; };
    h.event_time_ps = [](const sluice_fw_event* e) { return e->time_ps; };
    h.event_count = [](const sluice_fw_event* e) { return e->count; };
    h.event_bytes = [](const sluice_fw_event* e) { return e->bytes; };
    h.event_seq = [](const sluice_fw_event* e) { return e->seq; };
    h.event_ecn = [](const sluice_fw_event* e) { return e->ecn; };
    h.event_fb = [](const sluice_fw_event* e) { return e->fb; };
    h.event_qoff = [](const sluice_fw_event* e) { return e->qoff; };
    h.event_qdelta = [](const sluice_fw_event* e) { return e->qdelta; };
    h.event_cpid = [](const sluice_fw_event* e) { return e->cpid; };
    h.event_rtt_ps = [](const sluice_fw_event* e) { return e->rtt_ps; };
    h.set_rate = [](sluice_fw_result* r, uint32_t q) {
      r->has_rate = r->rate_is_fraction = true;
      r->fraction = q;
    };
    h.set_rate_bps = [](sluice_fw_result* r, double bps) {
      r->has_rate = true;
      r->rate_is_fraction = false;
      r->rate_bps = bps;
    };
    h.set_window = [](sluice_fw_result* r, uint64_t bytes) {
      r->has_window = true;
      r->window = bytes;
    };
    h.request_probe = [](sluice_fw_result* r) { r->probe = true; };
    h.set_timer = [](sluice_fw_result* r, uint64_t at) {
      if (r->has_timer && r->timer_ps <= at) return;  // as the event queue: an earlier one stays
      r->has_timer = true;
      r->timer_ps = at;
    };
    h.event_cause = [](const sluice_fw_event* e) { return e->cause; };
    return h;
  }();
  return table;
}

sluice_fw_event event_of(uint32_t type, uint64_t now) {
  sluice_fw_event e;
  e.type = type;
  e.time_ps = now;
  return e;
}

void firmware_flow::on_feedback(const packet_header& h, uint64_t now) {
  sluice_fw_event e = event_of(SLUICE_FW_EV_CNP, now);
  e.seq = h.seq;
  e.ecn = h.ecn;
  if (h.kind == frame_kind::cnp) {
    if (h.flags & frame_flags::becn) e.type = SLUICE_FW_EV_BECN;
    roce::headers w;
    if (h.image && roce::decode(h.image->data(), w)) e.ecn = w.ecn;
  } else if (h.kind == frame_kind::cnm) {
    cnm_pdu pdu;
    if (!h.image || !decode_cnm(*h.image, pdu)) return;
    e.type = pdu.version == 1 ? SLUICE_FW_EV_BCN : SLUICE_FW_EV_CNM;
    e.fb = pdu.quantized_feedback;
    e.qoff = pdu.q_offset;
    e.qdelta = pdu.q_delta;
    e.cpid = pdu.cpid;
  } else if (h.kind == frame_kind::ack) {
    e.type = SLUICE_FW_EV_ACK;
  } else {
    return;
  }
  engine.deliver(*this, e);
  if (e.type == SLUICE_FW_EV_ACK && probe_out && h.seq >= probe_end) {
    probe_out = false;
    sluice_fw_event rtt = event_of(SLUICE_FW_EV_RTT, now);
    rtt.seq = h.seq;
    rtt.rtt_ps = now - probe_sent_ps;
    engine.deliver(*this, rtt);
  }
}

void firmware_flow::on_send(const packet_header& h, uint64_t now) {
  if (!started) {
    started = true;
    engine.deliver(*this, event_of(SLUICE_FW_EV_FLOW_START, now));
  }
  if (probe_wanted && !probe_out) {  // the probe rides on this frame; the ACK covering it answers
    probe_wanted = false;
    probe_out = true;
    probe_end = h.seq + h.payload;
    probe_sent_ps = now;
  }
  sluice_fw_event e = event_of(SLUICE_FW_EV_TX, now);
  e.bytes = h.size;
  e.seq = h.seq;
  engine.deliver(*this, e);
  if (spec.spec.kind == flow_kind::finite && h.seq + h.payload >= spec.spec.size) {
    sluice_fw_event end = event_of(SLUICE_FW_EV_FLOW_END, now);
    end.seq = h.seq + h.payload;
    engine.deliver(*this, end);
  }
}

void firmware_flow::on_timer() {
  const uint64_t now = now_ps();
  same_time_timers = now == last_timer_ps ? same_time_timers + 1 : 0;
  last_timer_ps = now;
  if (same_time_timers == 1000) engine.timer_storm(*this);
  engine.deliver(*this, event_of(SLUICE_FW_EV_TIMER, now));
}

const text_spec library_spec{
    "firmware",
    "congestion-control firmware for every flow this NIC sends, in place of `rp`: a "
    "path to a library built against sluice_fw_hal.h, or a shipped example (dcqcn, timely, rtt-probe); "
    "empty: none (docs/cosimulation.md)",
    "", check_library};
const text_spec device_library_spec{
    "firmware",
    "control-plane firmware of this switch, run from time 0: a path to a library built against "
    "sluice_fw_hal.h, or a shipped example (control-plane); empty: none (docs/cosimulation.md)",
    "", check_library};
const text_spec latency_spec{"firmware.latency",
                             "firmware service time per event: one time for every event type, or a list "
                             "'cnp=2us,timer=1us,tx=0' (a bare time first sets the rest); types tx, ack, nack, "
                             "cnp, cnm, bcn, fecn, becn, rtt, flow_start, flow_end, timer, irq; 0: handled at once",
                             "0", check_latency};
}  // namespace

firmware_params::firmware_params(const sc_core::sc_object* nic, bool device)
    : library(nic, device ? device_library_spec : library_spec),
      latency(nic, latency_spec),
      units(nic,
            [] {
              return param_spec<uint64_t>{"firmware.units", "firmware processing units serving events in parallel", 1,
                                          1, 1024};
            }),
      queue(nic,
            [] {
              return param_spec<uint64_t>{
                  "firmware.queue",
                  "events that may wait for a firmware unit; beyond it events are coalesced per flow and type", 64, 1,
                  1 << 20};
            }),
      watchdog(nic, [] {
        return param_spec<sc_time>{
            "firmware.watchdog", "wall-clock time a firmware handler may run before the run stops with an error",
            sc_time(1, sc_core::SC_SEC), sc_time(1, sc_core::SC_MS), sc_time(3600, sc_core::SC_SEC)};
      }) {}

std::array<uint64_t, SLUICE_FW_EV_COUNT> parse_firmware_latency(const std::string& key, const std::string& text) {
  std::array<uint64_t, SLUICE_FW_EV_COUNT> out{};
  std::size_t at = 0;
  bool first = true;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    std::string item = text.substr(at, comma - at);
    at = comma + 1;
    const std::size_t eq = item.find('=');
    const std::string type = eq == std::string::npos ? "" : item.substr(0, eq);
    const std::string value = eq == std::string::npos ? item : item.substr(eq + 1);
    const uint64_t ps = to_ps(parse_time(value, key));
    if (ps > 1'000'000'000'000ull) throw config_error(key + ": '" + value + "' is longer than 1 s");
    if (type.empty()) {
      if (!first) throw config_error(key + ": '" + item + "': only the first item may omit the event type");
      out.fill(ps);
    } else {
      int found = -1;
      for (int i = 0; i < SLUICE_FW_EV_COUNT; ++i)
        if (type == event_keys[i]) found = i;
      if (found < 0)
        throw config_error(key + ": '" + type +
                           "' is not an event type (tx, ack, nack, cnp, cnm, bcn, fecn, becn, rtt, flow_start, "
                           "flow_end, timer, irq)");
      out[found] = ps;
    }
    first = false;
  }
  return out;
}

const char* firmware_event_name(int type) { return type >= 0 && type < SLUICE_FW_EV_COUNT ? event_names[type] : "?"; }

std::unique_ptr<reaction_point_maker> make_firmware_maker(const sc_core::sc_object& nic, const mac_port& mac,
                                                          const firmware_params& params,
                                                          regs::register_target& registers) {
  return std::make_unique<firmware_engine>(nic, &mac, params, registers);
}

std::unique_ptr<device_firmware> make_device_firmware(const sc_core::sc_object& device, const firmware_params& params,
                                                      regs::register_target& registers) {
  return std::make_unique<firmware_engine>(device, nullptr, params, registers);
}

std::string firmware_mailbox(reaction_point_maker& maker, const std::string& message) {
  auto* engine = dynamic_cast<firmware_engine*>(&maker);
  if (!engine) throw config_error("this NIC runs no firmware");
  return engine->mailbox(message);
}

}  // namespace sluice
