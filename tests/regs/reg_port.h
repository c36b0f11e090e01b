// A test's way into a device's register target: an initiator socket bound to it, with plain
// 32-bit reads and writes through b_transport (LT) or transport_dbg, and every register of a
// device's map enumerated.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>

#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/regs/register_target.h"

namespace sluice::test {

// A 4-byte access of `data` at `address`, its status TLM_INCOMPLETE_RESPONSE as an initiator sends it.
inline void set_access(tlm::tlm_generic_payload& t, tlm::tlm_command cmd, uint64_t address, void* data) {
  t.set_command(cmd);
  t.set_address(address);
  t.set_data_ptr(static_cast<unsigned char*>(data));
  t.set_data_length(4);
  t.set_streaming_width(4);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

class reg_port : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<reg_port> socket;
  regs::register_target& target;

  reg_port(sc_core::sc_module_name name, regs::register_target& t) : sc_module(name), socket("socket"), target(t) {
    socket.bind(t.socket);
  }
  // LT access now (delay 0, so callable from a method or a timed callback).
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint32_t address, uint32_t& value, bool debug = false) {
    tlm::tlm_generic_payload t;
    set_access(t, cmd, address, &value);
    if (debug) {
      socket->transport_dbg(t);
    } else {
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      socket->b_transport(t, delay);
    }
    return t.get_response_status();
  }
  uint32_t read(uint32_t address, tlm::tlm_response_status* status = nullptr) {
    uint32_t v = 0;
    const tlm::tlm_response_status s = access(tlm::TLM_READ_COMMAND, address, v);
    if (status) *status = s;
    return v;
  }
  uint32_t peek(uint32_t address) {  // a debug read
    uint32_t v = 0;
    access(tlm::TLM_READ_COMMAND, address, v, true);
    return v;
  }
  tlm::tlm_response_status write(uint32_t address, uint32_t value) {
    return access(tlm::TLM_WRITE_COMMAND, address, value);
  }
};

// Register accesses at given simulated times, made by a thread of its own through the target's
// socket with b_transport: each carries its time as the local time offset (delay) from the
// thread's current time, as a loosely-timed initiator running ahead would.
class timed_accesses : public sc_core::sc_module {
 public:
  struct access {
    uint64_t at_ps;
    uint32_t address, value;  // value: written, or what a read returned
    bool write;
    tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
    uint64_t done_ps = 0;  // sc_time_stamp() + delay when b_transport returned
  };
  tlm_utils::simple_initiator_socket<timed_accesses> socket;
  std::vector<access> accesses;  // in time order; filled before the run

  timed_accesses(sc_core::sc_module_name name, regs::register_target& t) : sc_module(name), socket("socket") {
    socket.bind(t.socket);
    SC_THREAD(run);
  }
  SC_HAS_PROCESS(timed_accesses);

 private:
  void run() {
    for (access& a : accesses) {
      tlm::tlm_generic_payload t;
      set_access(t, a.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, a.address, &a.value);
      sc_core::sc_time delay = sc_core::sc_time::from_value(a.at_ps) - sc_core::sc_time_stamp();
      socket->b_transport(t, delay);
      a.status = t.get_response_status();
      a.done_ps = (sc_core::sc_time_stamp() + delay).value();
    }
  }
};

// One element of one register of one existing instance.
struct reg_ref {
  const regs::block_desc* block;
  const regs::register_desc* reg;
  uint32_t instance, element, address;
  std::string name;
};

// Every existing register element of a device (all instances and classes it has).
inline std::vector<reg_ref> every_register(regs::register_target& t, const regs::reg_device_if& device) {
  std::vector<reg_ref> out;
  const regs::device_desc& d = t.bank().desc();
  for (uint32_t b = 0; b < d.block_count; ++b) {
    const regs::block_desc& blk = *d.blocks[b];
    for (uint32_t n = 0; n < device.instances(blk); ++n)
      for (uint32_t r = 0; r < blk.register_count; ++r) {
        const regs::register_desc& reg = blk.registers[r];
        const uint32_t elements = reg.array_name[0] ? device.elements(reg) : 1;
        for (uint32_t e = 0; e < elements && e < reg.array_count; ++e) {
          const uint32_t a = blk.base + n * blk.instance_stride + reg.offset + e * reg.array_stride;
          regs::reg_location w;
          t.bank().decode(a, w);
          out.push_back({&blk, &reg, n, e, a, t.bank().name_of(w)});
        }
      }
  }
  return out;
}

}  // namespace sluice::test
