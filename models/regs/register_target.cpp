// sc_spawn: the AT path's process is spawned at the first AT access.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "models/regs/register_target.h"

#include <cstring>

namespace sluice::regs {
namespace {

const param_spec<uint64_t> latency_spec{
    "latency", "register access latency, in device clock cycles (<device>.regs.clock)", 4, 0, 1000000};
const param_spec<sc_core::sc_time> clock_spec{"clock", "device clock period of register accesses",
                                              sc_core::sc_time(1, sc_core::SC_NS), sc_core::SC_ZERO_TIME,
                                              sc_core::sc_time(1, sc_core::SC_MS)};

const param_spec<uint64_t> irq_latency_spec{
    "irq_latency",
    "cycles of <device>.regs.clock from an interrupt's cause (an INT_STATUS flag set while enabled) to the "
    "device's firmware seeing it",
    4, 0, 1000000};

const device_desc& device_named(const char* kind) {
  const device_desc* d = find_device(kind);
  if (!d) throw std::logic_error(std::string("no register map for device kind ") + kind);
  return *d;
}

bool in_thread() {
  sc_core::sc_process_handle h = sc_core::sc_get_current_process_handle();
  return h.valid() && h.proc_kind() == sc_core::SC_THREAD_PROC_;
}

}  // namespace

register_target::register_target(sc_core::sc_module_name name, const char* device_kind, reg_device_if& device)
    : sc_module(name),
      socket("socket"),
      latency(this, latency_spec),
      clock(this, clock_spec),
      irq_latency(this, irq_latency_spec),
      irq(*this),
      desc_(device_named(device_kind)),
      device_(device) {
  socket.bind(*this);
}

register_bank& register_target::bank() {
  if (!bank_) bank_ = std::make_unique<register_bank>(desc_, get_parent_object()->name(), device_);
  return *bank_;
}

// The access itself, at the caller's time: checks the payload and sets its response status.
void register_target::access(tlm::tlm_generic_payload& t, bool debug) {
  if (t.get_command() == tlm::TLM_IGNORE_COMMAND) {
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (t.get_data_length() != 4 || t.get_streaming_width() < 4) {
    t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (t.get_byte_enable_ptr()) {
    const unsigned n = t.get_byte_enable_length();
    for (unsigned i = 0; i < 4; ++i)
      if (n == 0 || t.get_byte_enable_ptr()[i % n] != TLM_BYTE_ENABLED) {
        t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
      }
  }
  if (t.get_address() > 0xffffffffull) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const uint32_t address = static_cast<uint32_t>(t.get_address());
  uint32_t value = 0;
  reg_status s;
  if (t.is_read()) {
    s = bank().read(address, value, debug);
    if (s == reg_status::ok) std::memcpy(t.get_data_ptr(), &value, 4);  // host byte order, as the initiator's
  } else {
    std::memcpy(&value, t.get_data_ptr(), 4);
    s = bank().write(address, value);
  }
  t.set_dmi_allowed(false);
  t.set_response_status(s == reg_status::ok              ? tlm::TLM_OK_RESPONSE
                        : s == reg_status::address_error ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                                         : tlm::TLM_COMMAND_ERROR_RESPONSE);
}

void register_target::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  // The access belongs at sc_time_stamp() + delay: let the kernel (and the models) get there.
  if (delay > sc_core::SC_ZERO_TIME && in_thread()) {
    sc_core::wait(delay);
    delay = sc_core::SC_ZERO_TIME;
  }
  access(t, false);
  delay += access_latency();
}

unsigned int register_target::transport_dbg(tlm::tlm_generic_payload& t) {
  access(t, true);
  return t.get_response_status() == tlm::TLM_OK_RESPONSE ? 4 : 0;
}

bool register_target::get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
  t.set_dmi_allowed(false);
  dmi.allow_none();
  return false;
}

tlm::tlm_sync_enum register_target::nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                                    sc_core::sc_time& delay) {
  if (!wake_) {  // the AT machinery, made at the first AT access
    wake_ = std::make_unique<sc_core::sc_event>((std::string(basename()) + "_at").c_str());
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.set_sensitivity(wake_.get());
    o.dont_initialize();
    sc_core::sc_spawn([this] { at_step(); }, (std::string(basename()) + "_at_step").c_str(), &o);
  }
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (phase == tlm::BEGIN_REQ) {
    if (delay == sc_core::SC_ZERO_TIME) {  // the updated path: taken now
      access(t, false);
      const sc_core::sc_time due = now + access_latency();
      responses_.push_back({&t, due});
      wake_at(due);
      phase = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    requests_.push_back({&t, now + delay});  // the accepted path: END_REQ at its time
    wake_at(now + delay);
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::END_RESP) {
    if (&t == responding_) responding_ = nullptr;
    if (!responses_.empty()) wake_at(std::max(now, responses_.front().at));
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_ERROR("sluice/regs", "nb_transport_fw: an initiator may send only BEGIN_REQ and END_RESP");
  return tlm::TLM_COMPLETED;
}

void register_target::wake_at(const sc_core::sc_time& at) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  wake_->notify(at > now ? at - now : sc_core::SC_ZERO_TIME);  // an earlier notification wins
}

void register_target::at_step() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (!requests_.empty() && requests_.front().at <= now) {
    tlm::tlm_generic_payload& t = *requests_.front().t;
    requests_.pop_front();
    access(t, false);
    responses_.push_back({&t, now + access_latency()});
    tlm::tlm_phase phase = tlm::END_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    socket->nb_transport_bw(t, phase, d);
  }
  while (!responding_ && !responses_.empty() && responses_.front().at <= now) {
    tlm::tlm_generic_payload& t = *responses_.front().t;
    responses_.pop_front();
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    responding_ = &t;
    if (socket->nb_transport_bw(t, phase, d) == tlm::TLM_COMPLETED || phase == tlm::END_RESP) responding_ = nullptr;
  }
  if (!requests_.empty()) wake_at(requests_.front().at);
  if (!responding_ && !responses_.empty()) wake_at(responses_.front().at);
}

}  // namespace sluice::regs
