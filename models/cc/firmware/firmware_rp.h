// A firmware-driven reaction point (docs/cosimulation.md): the NIC's `firmware` parameter names
// a library (firmware_library.h) whose handlers then react for every flow the NIC sends, in
// place of the `rp` policy. Each event (transmit, feedback, timer) is charged a service time,
// <nic>.firmware.latency by event type, on <nic>.firmware.units processing units behind a queue
// of <nic>.firmware.queue events; a handler runs, in zero simulated time, when its event's
// service starts, and its rate reaches the flow's limiter when the service ends. With the queue
// full, further events are coalesced per flow and type (firmware.coalesced). An event type
// whose latency is 0 is handled at once, outside the units: at 0 for every type the firmware
// sees and acts exactly where a built-in reaction point would.
#pragma once
#include <array>
#include <memory>
#include <string>

#include "models/cc/firmware/sluice_fw_hal.h"
#include "models/cc/flow.h"
#include "models/cc/reaction_point.h"
#include "models/core/params.h"
#include "models/regs/register_target.h"

namespace sluice {

// The firmware parameters, declared by every NIC and switch (inert without `firmware`).
struct firmware_params {
  // device: a switch's (its control plane: no flows), rather than a NIC's reaction point.
  explicit firmware_params(const sc_core::sc_object* owner, bool device = false);
  text_param library;  // <nic>.firmware: a path or a shipped example's name; "" none
  text_param latency;  // <nic>.firmware.latency: "5us", or "cnp=2us,timer=1us,tx=0", ...
  param<uint64_t> units;
  param<uint64_t> queue;
  param<sc_core::sc_time> watchdog;  // wall-clock, per handler call
  bool attached() const { return !library().empty(); }
};

// Per event type, in ps (index: sluice_fw_event_type). Throws config_error naming `key`.
std::array<uint64_t, SLUICE_FW_EV_COUNT> parse_firmware_latency(const std::string& key, const std::string& text);
const char* firmware_event_name(int type);  // "CNP", "TIMER", ...

// The maker a NIC uses when `firmware` is set; loads the library (config_error on a bad one)
// and declares its parameters (<nic>.firmware.<name>) and counters. The HAL's register calls
// reach `registers`, the NIC's register bank, and the NIC's interrupt is an IRQ event.
std::unique_ptr<reaction_point_maker> make_firmware_maker(const sc_core::sc_object& nic, const mac_port& mac,
                                                          const firmware_params& params,
                                                          regs::register_target& registers);

// The firmware of a device without flows (a switch's control plane, docs/cosimulation.md): its
// init runs at time 0 and configures the device through `registers`; its interrupts are IRQ
// events, served as a NIC's events are (firmware.latency, .units, .queue).
class device_firmware {
 public:
  virtual ~device_firmware() = default;
  virtual void derive_defaults() = 0;  // once the overrides are final
  virtual void start() = 0;            // at the start of simulation: init at time 0
  virtual std::string mailbox_message(const std::string& message) = 0;
};
std::unique_ptr<device_firmware> make_device_firmware(const sc_core::sc_object& device, const firmware_params& params,
                                                      regs::register_target& registers);

// A message to the NIC's firmware mailbox (its on_mailbox handler), now; returns the reply.
// Throws config_error if the maker is not a firmware's or the firmware has no mailbox.
std::string firmware_mailbox(reaction_point_maker& maker, const std::string& message);

}  // namespace sluice
