// A device's register bank behind a TLM-2.0 base-protocol target socket: one per switch and NIC
// ("sw0.regs"). Every register is one aligned 32-bit word.
//
// - b_transport: the access happens at sc_time_stamp() + delay (a caller's local time offset is
//   honoured: the target waits it out first, so that the models have reached that time), and
//   returns with delay = the access latency (`regs.latency` device clock cycles of `regs.clock`).
//   (A caller that cannot wait, a method process, has its access made at once.)
// - nb_transport_fw, the four phases: BEGIN_REQ with delay 0 is taken at once (TLM_UPDATED,
//   END_REQ); with delay > 0 it is accepted (TLM_ACCEPTED) and END_REQ follows on the backward
//   path at its time. The access happens at END_REQ; BEGIN_RESP follows the latency later, one
//   response at a time (the next waits for END_RESP, or TLM_COMPLETED from the initiator).
// - transport_dbg: reads and writes without side effects on reads (a read-to-clear register
//   stays as it is, no latch) and in zero time.
// - DMI refused.
// Errors: unmapped or misaligned address TLM_ADDRESS_ERROR_RESPONSE; a length other than 4 or
// a streaming width below it TLM_BURST_ERROR_RESPONSE; byte enables other than all four
// TLM_BYTE_ENABLE_ERROR_RESPONSE; a write to a read-only or locked register, or one the model
// refuses (a value out of range), TLM_COMMAND_ERROR_RESPONSE.
#pragma once
#include <memory>
#include <systemc>
#include <tlm>

#include "models/core/params.h"
#include "models/core/ring.h"
#include "models/regs/interrupt_line.h"
#include "models/regs/register_bank.h"

namespace sluice::regs {

using target_socket = tlm::tlm_target_socket<32, tlm::tlm_base_protocol_types, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

class register_target : public sc_core::sc_module, public tlm::tlm_fw_transport_if<> {
 public:
  target_socket socket;
  param<uint64_t> latency;        // device clock cycles per access
  param<sc_core::sc_time> clock;  // the device's clock period
  param<uint64_t> irq_latency;    // device clock cycles from an interrupt's cause to its sink
  interrupt_line irq;             // INT_STATUS & INT_ENABLE, to the device's firmware

  // device_kind: "switch" or "nic" (the generated map); device: what the bank reads besides
  // parameters and statistics. The parent module's name is the {dev} of the bindings.
  register_target(sc_core::sc_module_name name, const char* device_kind, reg_device_if& device);

  // The bank, made at its first use (a run without register accesses never makes it).
  register_bank& bank();
  const reg_device_if& device() const { return device_; }
  sc_core::sc_time access_latency() const { return clock() * static_cast<double>(latency()); }

  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) override;
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override;
  unsigned int transport_dbg(tlm::tlm_generic_payload& t) override;
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) override;

 private:
  void access(tlm::tlm_generic_payload& t, bool debug);
  void at_step();  // the AT path's process, spawned at the first nb_transport_fw
  void wake_at(const sc_core::sc_time& at);

  const device_desc& desc_;
  reg_device_if& device_;
  std::unique_ptr<register_bank> bank_;
  struct pending {
    tlm::tlm_generic_payload* t;
    sc_core::sc_time at;
  };
  // Rings, not deques: an empty std::deque allocates a block (1 KiB for the two), and every
  // switch and NIC has a target that a run without register accesses never uses.
  ring<pending> requests_;                          // accepted, END_REQ due at `at`
  ring<pending> responses_;                         // accessed, BEGIN_RESP due at `at`
  tlm::tlm_generic_payload* responding_ = nullptr;  // BEGIN_RESP sent, END_RESP not yet
  std::unique_ptr<sc_core::sc_event> wake_;
};

}  // namespace sluice::regs
