// The register maps of the devices, as tables: what tools/regmap_gen.py generates from
// regmaps/*.yaml (build/regmaps/regmap_tables.cpp) and the register bank interprets
// (register_bank.*). One table per block; a device kind (switch, NIC) is its blocks by base
// address. See docs/cosimulation.md#register-maps.
#pragma once
#include <cstdint>

namespace sluice::regs {

// What a field does on an access (docs/cosimulation.md lists the semantics).
enum class access : uint8_t {
  rw,     // read and write
  ro,     // read only: a write to a register with only such fields is a command error
  wo,     // write only: reads 0
  r2c,    // read to clear: the value counts from the last read (a debug read does not clear)
  w1c,    // write 1 to clear: sticky flags, or clearing the stored bits of an alias
  w1s,    // write 1 to set
  pulse,  // write 1 runs a command; reads 0
  lock,   // write 1 locks the device's lockable registers until reset
};

// What a field's value is: stored in the bank, a parameter, a statistic (a glob sums its
// matches), a value the device gives (its port count, a flow's rate), or a constant (the layout).
enum class bind_kind : uint8_t { none, param, stat, device, constant };

struct enum_item {
  const char* name;
  uint32_t value;
};

struct field_desc {
  const char* name;
  uint8_t lsb, width;
  access acc;
  uint32_t reset;
  bind_kind kind;
  const char* bind;  // the name pattern: "{dev}.port{port}.pfc.xoff", "flow.rate", "layout"
  const char* unit;  // "bytes", "ns", "Mbps", "count", "frames", "1/256", "1/65536" or ""
  const enum_item* enums;
  uint8_t enum_count;
  const char* action;  // pulse: the command ("clear_counters", "flow.release")
  const char* description;
  uint32_t mask() const { return width == 32 ? 0xffffffffu : ((1u << width) - 1u) << lsb; }
};

struct register_desc {
  const char* name;
  uint32_t offset;
  access acc;  // the register's own kind (its fields may differ)
  bool lockable;
  int alias;               // index of the register whose stored value this one shares, or -1
  const char* array_name;  // "cls", or "" (one element)
  uint32_t array_count, array_stride;
  char half;  // 'l' / 'h': the low / high word of a 64-bit counter read through a latch; 0: none
  const field_desc* fields;
  uint8_t field_count;
  const char* description;
};

struct block_desc {
  const char* name;  // "switch_port"
  const char* device;
  const char* title;
  const char* description;
  uint32_t base, size;
  const char* instance_name;  // "port", "flow", or "" (one instance)
  uint32_t instance_count, instance_stride;
  const register_desc* registers;
  uint32_t register_count;
  uint32_t layout;  // checksum of this block's layout
};

struct device_desc {
  const char* name;  // "switch", "nic"
  const block_desc* const* blocks;
  uint32_t block_count;
  uint32_t layout;  // checksum of the device's layout (all its blocks)
};

// The generated tables.
const device_desc* const* devices();
uint32_t device_count();
const device_desc* find_device(const char* name);
// A generated view as text ("c", "md", "rdl"), or null.
const char* view_text(const char* device, const char* format);

}  // namespace sluice::regs
