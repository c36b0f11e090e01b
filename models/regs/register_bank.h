// A device's register bank: interprets the generated tables (regmap.h) on each access. A field
// is stored in the bank, or bound to a live parameter (a write is param_base::write_live, at the
// models' current time, through the owner's on-change hook), a statistic (read through the
// statistics registry), or a value the device gives (reg_device_if). Nothing is computed
// until an access: the datapath never touches the bank.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "models/regs/regmap.h"

namespace sluice {
class param_base;
}

namespace sluice::regs {

// What a device gives its bank besides parameters and statistics, in the fields' units.
class reg_device_if {
 public:
  // Instances of a block that exist on this device (ports, flow slots in use); the rest of
  // the block's instances are unmapped.
  virtual uint32_t instances(const block_desc& block) const = 0;
  // Elements of an array register that exist ("cls": the fabric's classes).
  virtual uint32_t elements(const register_desc& reg) const = 0;
  // A "device:" binding ("ports", "flow.rate") of `instance`; false: none.
  virtual bool read_value(const char* key, uint32_t instance, uint64_t& value) const = 0;
  virtual bool write_value(const char* key, uint32_t instance, uint64_t value) = 0;
  // A pulse field's command other than the bank's own (clear_counters); false: unknown.
  virtual bool command(const char* action, uint32_t instance) = 0;
  // The probe points (globs) whose events may set an INT_STATUS flag of device `dev`, which
  // its interrupt line watches once enabled (interrupt_line.h).
  virtual std::vector<std::string> interrupt_triggers(const std::string& dev) const = 0;

 protected:
  ~reg_device_if() = default;
};

enum class reg_status { ok, address_error, command_error };

// Where an address falls.
struct reg_location {
  const block_desc* block = nullptr;
  uint32_t instance = 0;
  const register_desc* reg = nullptr;
  uint32_t reg_index = 0, element = 0;
};

class register_bank {
 public:
  // name: the device's name ("sw0"), the {dev} of the bindings.
  register_bank(const device_desc& desc, std::string name, reg_device_if& device);

  const device_desc& desc() const { return desc_; }
  const std::string& name() const { return name_; }
  // One aligned 32-bit word. A debug read has no side effect (no clear, no latch).
  reg_status read(uint32_t address, uint32_t& value, bool debug = false);
  reg_status write(uint32_t address, uint32_t value);
  // Why the last access failed (one line, naming the register), "" after a success.
  const std::string& error() const { return error_; }
  // The register (and its instance and element) at `address`; false: unmapped.
  bool decode(uint32_t address, reg_location& where) const;
  // "switch_port[3].ECN_KMIN[3]" or "PFC_XOFF" (block and indexes optional where unambiguous:
  // the first block holding the register, instance and element 0) -> address; with a
  // ".FIELD" suffix, also the field. Throws config_error on an unknown path.
  uint32_t address_of(const std::string& path, const field_desc** field = nullptr) const;
  // The name of the register at `address`: "switch_port[3].ECN_KMIN[3]".
  std::string name_of(const reg_location& where) const;
  // Whether a field's binding names a parameter or statistic of this configuration (a bound
  // field without one reads 0 and refuses writes), and the parameter (null: none).
  bool resolves(const reg_location& where, const field_desc& f);
  param_base* parameter(const reg_location& where, const field_desc& f) { return bind(where, f).param; }
  // Back to reset: stored values, latches, counter baselines and the lock.
  void reset();
  // Called after every write that succeeded (the interrupt line re-evaluates).
  void after_write(std::function<void()> hook) { after_write_ = std::move(hook); }

 private:
  using key = std::tuple<const void*, uint32_t, uint32_t>;  // (table entry, instance, element)
  struct binding {
    param_base* param = nullptr;
    std::vector<uint32_t> stats;  // rows of the statistics index (a glob sums them)
    bool found = false;
  };
  uint64_t field_value(const reg_location& w, const field_desc& f, bool debug, bool for_write);
  reg_status write_fields(uint32_t address, uint32_t value);
  reg_status write_field(const reg_location& w, const field_desc& f, uint32_t v);
  const binding& bind(const reg_location& w, const field_desc& f);
  uint64_t stat_total(const binding& b) const;
  uint32_t& stored(const reg_location& w);
  std::string bound_name(const reg_location& w, const field_desc& f) const;
  reg_status fail(reg_status s, const reg_location* w, const std::string& why);
  void clear_counters();

  const device_desc& desc_;
  std::string name_;
  reg_device_if& device_;
  std::string error_;
  bool locked_ = false;
  std::map<key, uint32_t> stored_;
  std::map<key, uint64_t> baseline_;  // r2c and w1c statistics: the total at the last clear
  std::map<key, uint64_t> latch_;     // 64-bit counters: the value latched by the LO read
  std::map<key, binding> bindings_;
  std::size_t params_seen_ = 0, stats_seen_ = 0;  // registry sizes the bindings were made with
  std::function<void()> after_write_;
};

}  // namespace sluice::regs
