#include "models/regs/register_bank.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "models/core/params.h"
#include "models/core/stats.h"

namespace sluice::regs {
namespace {

// The registries by name, composed once (and again when something registered since): a bank
// binds a field on its first access and keeps the binding.
struct name_index {
  std::unordered_map<std::string, param_base*> params;
  std::size_t params_size = ~std::size_t{0};
  std::vector<stat_registry::row> stats;
  std::unordered_map<std::string, uint32_t> stat_rows;
  std::size_t stats_size = ~std::size_t{0};

  static name_index& instance() {
    static name_index index;
    return index;
  }
  void refresh() {
    param_registry& pr = param_registry::instance();
    if (pr.size() != params_size) {
      params.clear();
      for (param_base* p : pr.matching("*")) params.emplace(p->name(), p);
      params_size = pr.size();
    }
    stat_registry& sr = stat_registry::instance();
    if (sr.size() != stats_size) {
      stats = sr.rows();
      stat_rows.clear();
      for (uint32_t i = 0; i < stats.size(); ++i) stat_rows.emplace(stats[i].name, i);
      stats_size = sr.size();
    }
  }
};

bool has_glob(const std::string& s) { return s.find_first_of("*?") != std::string::npos; }

uint32_t field_max(const field_desc& f) { return f.width == 32 ? 0xffffffffu : (1u << f.width) - 1u; }

uint32_t saturate(const field_desc& f, uint64_t v) {
  return v > field_max(f) ? field_max(f) : static_cast<uint32_t>(v);
}

double scale_of(const field_desc& f) {
  if (std::strcmp(f.unit, "1/256") == 0) return 256.0;
  if (std::strcmp(f.unit, "1/65536") == 0) return 65536.0;
  return 1.0;
}

bool writable(access a) { return a != access::ro && a != access::r2c; }

// A parameter's value in the field's unit.
uint64_t param_value(const param_base& p, const field_desc& f) {
  if (auto* b = dynamic_cast<const param<byte_count>*>(&p)) return b->value().bytes;
  if (auto* t = dynamic_cast<const param<sc_core::sc_time>*>(&p))
    return static_cast<uint64_t>(std::llround(t->value().to_seconds() * 1e9));
  if (auto* r = dynamic_cast<const param<data_rate>*>(&p))
    return static_cast<uint64_t>(std::llround(r->value().bps / 1e6));
  if (auto* d = dynamic_cast<const param<double>*>(&p))
    return static_cast<uint64_t>(std::llround(d->value() * scale_of(f)));
  if (auto* c = dynamic_cast<const param<uint64_t>*>(&p)) return c->value();
  if (auto* o = dynamic_cast<const param<bool>*>(&p)) return o->value() ? 1 : 0;
  const std::string v = p.value_string();  // a choice: its enum value
  for (uint8_t i = 0; i < f.enum_count; ++i)
    if (v == f.enums[i].name) return f.enums[i].value;
  return field_max(f);  // a choice the map has no name for
}

// The text param_base::write_live parses for a field value.
std::string param_text(const param_base& p, const field_desc& f, uint32_t v) {
  const std::string n = std::to_string(v);
  if (dynamic_cast<const param<byte_count>*>(&p)) return n + "B";
  if (dynamic_cast<const param<sc_core::sc_time>*>(&p)) return n + "ns";
  if (dynamic_cast<const param<data_rate>*>(&p)) return n + "Mbps";
  if (dynamic_cast<const param<double>*>(&p)) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v / scale_of(f));
    return text;
  }
  if (dynamic_cast<const param<bool>*>(&p)) return v ? "true" : "false";
  for (uint8_t i = 0; i < f.enum_count; ++i)
    if (f.enums[i].value == v) return f.enums[i].name;
  return n;
}

void replace_all(std::string& s, const char* what, const std::string& with) {
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
    s.replace(at, std::strlen(what), with);
}

}  // namespace

register_bank::register_bank(const device_desc& desc, std::string name, reg_device_if& device)
    : desc_(desc), name_(std::move(name)), device_(device) {}

bool register_bank::decode(uint32_t address, reg_location& w) const {
  if (address % 4) return false;
  for (uint32_t b = 0; b < desc_.block_count; ++b) {
    const block_desc& blk = *desc_.blocks[b];
    if (address < blk.base || address >= blk.base + blk.instance_count * blk.instance_stride) continue;
    const uint32_t instance = (address - blk.base) / blk.instance_stride;
    const uint32_t offset = (address - blk.base) % blk.instance_stride;
    if (offset >= blk.size || instance >= device_.instances(blk)) return false;
    for (uint32_t r = 0; r < blk.register_count; ++r) {
      const register_desc& reg = blk.registers[r];
      if (offset < reg.offset || (offset - reg.offset) % reg.array_stride) continue;
      const uint32_t element = (offset - reg.offset) / reg.array_stride;
      if (element >= reg.array_count) continue;
      if (reg.array_name[0] && element >= device_.elements(reg)) return false;
      w = reg_location{&blk, instance, &reg, r, element};
      return true;
    }
    return false;
  }
  return false;
}

std::string register_bank::name_of(const reg_location& w) const {
  std::string s = w.block->name;
  if (w.block->instance_name[0]) s += "[" + std::to_string(w.instance) + "]";
  s += std::string(".") + w.reg->name;
  if (w.reg->array_name[0]) s += "[" + std::to_string(w.element) + "]";
  return s;
}

uint32_t register_bank::address_of(const std::string& path, const field_desc** field) const {
  // [block[i].]REG[e][.FIELD]
  auto bad = [&](const std::string& why) { return config_error(name_ + ": register '" + path + "': " + why); };
  std::vector<std::pair<std::string, long>> parts;
  std::size_t at = 0;
  while (at <= path.size()) {
    std::size_t dot = path.find('.', at);
    std::string part = path.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
    long index = -1;
    std::size_t open = part.find('[');
    if (open != std::string::npos) {
      if (part.back() != ']') throw bad("an index is written [N]");
      const std::string digits = part.substr(open + 1, part.size() - open - 2);
      if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
        throw bad("an index is written [N]");
      index = std::stol(digits);
      part = part.substr(0, open);
    }
    parts.emplace_back(part, index);
    if (dot == std::string::npos) break;
    at = dot + 1;
  }
  for (uint32_t b = 0; b < desc_.block_count; ++b) {
    const block_desc& blk = *desc_.blocks[b];
    std::size_t first = 0;
    long instance = 0;
    if (parts[0].first == blk.name) {
      first = 1;
      instance = parts[0].second < 0 ? 0 : parts[0].second;
    } else if (parts.size() > 2) {
      continue;
    }
    if (first >= parts.size()) throw bad("names a block but no register");
    for (uint32_t r = 0; r < blk.register_count; ++r) {
      const register_desc& reg = blk.registers[r];
      if (parts[first].first != reg.name) continue;
      const long element = parts[first].second < 0 ? 0 : parts[first].second;
      if (instance >= static_cast<long>(blk.instance_count) || element >= static_cast<long>(reg.array_count))
        throw bad("index out of range");
      if (field) *field = nullptr;
      if (first + 1 < parts.size()) {
        for (uint8_t f = 0; f < reg.field_count; ++f)
          if (parts[first + 1].first == reg.fields[f].name && field) *field = &reg.fields[f];
        if (!field || !*field)
          throw bad(std::string("register ") + reg.name + " has no field '" + parts[first + 1].first + "'");
      }
      return blk.base + static_cast<uint32_t>(instance) * blk.instance_stride + reg.offset +
             static_cast<uint32_t>(element) * reg.array_stride;
    }
    if (first == 1) throw bad(std::string("block ") + blk.name + " has no such register");
  }
  throw bad(std::string("no such register in the ") + desc_.name + " map (see `sluice regs " + desc_.name + "`)");
}

std::string register_bank::bound_name(const reg_location& w, const field_desc& f) const {
  std::string s = f.bind;
  replace_all(s, "{dev}", name_);
  if (w.block->instance_name[0])
    replace_all(s, (std::string("{") + w.block->instance_name + "}").c_str(), std::to_string(w.instance));
  if (w.reg->array_name[0])
    replace_all(s, (std::string("{") + w.reg->array_name + "}").c_str(), std::to_string(w.element));
  return s;
}

const register_bank::binding& register_bank::bind(const reg_location& w, const field_desc& f) {
  name_index& index = name_index::instance();
  index.refresh();
  if (params_seen_ != index.params_size || stats_seen_ != index.stats_size) {  // new declarations: bind again
    bindings_.clear();
    params_seen_ = index.params_size;
    stats_seen_ = index.stats_size;
  }
  binding& b = bindings_[key{&f, w.instance, w.element}];
  if (b.found) return b;
  const std::string name = bound_name(w, f);
  if (f.kind == bind_kind::param) {
    auto it = index.params.find(name);
    b.param = it == index.params.end() ? nullptr : it->second;
  } else if (has_glob(name)) {
    for (uint32_t i = 0; i < index.stats.size(); ++i)
      if (glob_match(name.c_str(), index.stats[i].name.c_str())) b.stats.push_back(i);
  } else {
    auto it = index.stat_rows.find(name);
    if (it != index.stat_rows.end()) b.stats.push_back(it->second);
  }
  b.found = true;
  return b;
}

bool register_bank::resolves(const reg_location& w, const field_desc& f) {
  if (f.kind != bind_kind::param && f.kind != bind_kind::stat) return true;
  const binding& b = bind(w, f);
  return b.param || !b.stats.empty();
}

uint64_t register_bank::stat_total(const binding& b) const {
  double sum = 0;
  for (uint32_t i : b.stats) sum += name_index::instance().stats[i].value();
  return static_cast<uint64_t>(std::llround(sum));
}

uint32_t& register_bank::stored(const reg_location& w) {
  const register_desc& reg = w.reg->alias >= 0 ? w.block->registers[w.reg->alias] : *w.reg;
  auto it = stored_.find(key{&reg, w.instance, w.element});
  if (it != stored_.end()) return it->second;
  uint32_t reset = 0;
  for (uint8_t f = 0; f < reg.field_count; ++f)
    reset |= (reg.fields[f].reset << reg.fields[f].lsb) & reg.fields[f].mask();
  return stored_[key{&reg, w.instance, w.element}] = reset;
}

// The field's value, before shifting into place (64 bits for a counter's LO half).
uint64_t register_bank::field_value(const reg_location& w, const field_desc& f, bool debug, bool for_write) {
  if (f.acc == access::wo || f.acc == access::pulse) return 0;
  uint64_t v = 0;
  switch (f.kind) {
    case bind_kind::none:
      return (stored(w) & f.mask()) >> f.lsb;
    case bind_kind::constant:
      return desc_.layout;
    case bind_kind::device:
      return device_.read_value(f.bind, w.instance, v) ? v : 0;
    case bind_kind::param: {
      const binding& b = bind(w, f);
      return b.param ? param_value(*b.param, f) : 0;
    }
    case bind_kind::stat: {
      v = stat_total(bind(w, f));
      if (f.acc != access::r2c && f.acc != access::w1c) return v;
      uint64_t& base = baseline_[key{&f, w.instance, w.element}];
      const uint64_t since = v >= base ? v - base : 0;
      if (f.acc == access::w1c) return since > 0 ? 1 : 0;
      if (!debug && !for_write) base = v;  // read to clear
      return since;
    }
  }
  return 0;
}

reg_status register_bank::fail(reg_status s, const reg_location* w, const std::string& why) {
  error_ = name_ + ": " + (w ? "register " + name_of(*w) + ": " : std::string()) + why;
  return s;
}

reg_status register_bank::read(uint32_t address, uint32_t& value, bool debug) {
  error_.clear();
  value = 0;
  reg_location w;
  char where[16];
  std::snprintf(where, sizeof where, "%#x", address);
  if (!decode(address, w)) return fail(reg_status::address_error, nullptr, std::string("no register at ") + where);
  if (w.reg->half == 'h') {  // the latch the LO read filled
    const register_desc& lo = w.block->registers[w.reg_index - 1];
    auto it = latch_.find(key{&lo, w.instance, w.element});
    value = it == latch_.end() ? 0 : static_cast<uint32_t>(it->second >> 32);
    return reg_status::ok;
  }
  for (uint8_t i = 0; i < w.reg->field_count; ++i) {
    const field_desc& f = w.reg->fields[i];
    const uint64_t v = field_value(w, f, debug, false);
    if (w.reg->half == 'l') {
      if (!debug) latch_[key{w.reg, w.instance, w.element}] = v;
      value = static_cast<uint32_t>(v);
      return reg_status::ok;
    }
    value |= (saturate(f, v) << f.lsb) & f.mask();
  }
  return reg_status::ok;
}

reg_status register_bank::write(uint32_t address, uint32_t value) {
  const reg_status s = write_fields(address, value);
  if (s == reg_status::ok && after_write_) after_write_();
  return s;
}

reg_status register_bank::write_fields(uint32_t address, uint32_t value) {
  error_.clear();
  reg_location w;
  char where[16];
  std::snprintf(where, sizeof where, "%#x", address);
  if (!decode(address, w)) return fail(reg_status::address_error, nullptr, std::string("no register at ") + where);
  bool any_writable = false;
  for (uint8_t i = 0; i < w.reg->field_count; ++i) any_writable |= writable(w.reg->fields[i].acc);
  if (!any_writable) return fail(reg_status::command_error, &w, "read-only");
  if (w.reg->lockable && locked_) return fail(reg_status::command_error, &w, "locked (LOCK.LOCKED is set)");
  for (uint8_t i = 0; i < w.reg->field_count; ++i) {
    const field_desc& f = w.reg->fields[i];
    if (!writable(f.acc)) continue;  // read-only fields of a writable register ignore writes
    const reg_status s = write_field(w, f, (value & f.mask()) >> f.lsb);
    if (s != reg_status::ok) return s;
  }
  return reg_status::ok;
}

reg_status register_bank::write_field(const reg_location& w, const field_desc& f, uint32_t v) {
  switch (f.acc) {
    case access::rw:
    case access::wo:
      if (f.kind == bind_kind::param) {
        const binding& b = bind(w, f);
        if (!b.param)
          return fail(reg_status::command_error, &w, "no parameter " + bound_name(w, f) + " in this configuration");
        // Writing back what a read gave leaves the parameter as it is (a fraction the field
        // rounds, such as pmax 0.01 in 1/65536, keeps its exact value).
        if (b.param->live() && saturate(f, param_value(*b.param, f)) == v) return reg_status::ok;
        try {
          b.param->write_live(param_text(*b.param, f, v));
        } catch (const config_error& e) {
          return fail(reg_status::command_error, &w, e.what());
        }
        return reg_status::ok;
      }
      if (f.kind == bind_kind::device) {
        if (!device_.write_value(f.bind, w.instance, v))
          return fail(reg_status::command_error, &w, std::string("the device refused ") + f.name);
        return reg_status::ok;
      }
      stored(w) = (stored(w) & ~f.mask()) | ((v << f.lsb) & f.mask());
      return reg_status::ok;
    case access::w1c:
      if (!v) return reg_status::ok;
      if (f.kind == bind_kind::stat) {
        baseline_[key{&f, w.instance, w.element}] = stat_total(bind(w, f));
      } else {
        stored(w) &= ~((v << f.lsb) & f.mask());
      }
      return reg_status::ok;
    case access::w1s:
      stored(w) |= (v << f.lsb) & f.mask();
      return reg_status::ok;
    case access::lock:
      if (v) locked_ = true;
      stored(w) = (stored(w) & ~f.mask()) | (locked_ ? 1u << f.lsb : 0u);
      return reg_status::ok;
    case access::pulse:
      if (!v) return reg_status::ok;
      if (std::strcmp(f.action, "clear_counters") == 0) {
        clear_counters();
      } else if (!device_.command(f.action, w.instance)) {
        return fail(reg_status::command_error, &w, std::string("command ") + f.action + " failed");
      }
      return reg_status::ok;
    default:
      return reg_status::ok;
  }
}

// Every read-to-clear counter and sticky flag of the device that exists starts again from 0.
void register_bank::clear_counters() {
  for (uint32_t b = 0; b < desc_.block_count; ++b) {
    const block_desc& blk = *desc_.blocks[b];
    const uint32_t instances = device_.instances(blk);
    for (uint32_t r = 0; r < blk.register_count; ++r) {
      const register_desc& reg = blk.registers[r];
      const uint32_t elements = reg.array_name[0] ? device_.elements(reg) : 1;
      for (uint8_t i = 0; i < reg.field_count; ++i) {
        const field_desc& f = reg.fields[i];
        if (f.kind != bind_kind::stat || (f.acc != access::r2c && f.acc != access::w1c)) continue;
        for (uint32_t n = 0; n < instances; ++n)
          for (uint32_t e = 0; e < elements; ++e) {
            const reg_location w{&blk, n, &reg, r, e};
            baseline_[key{&f, n, e}] = stat_total(bind(w, f));
          }
      }
    }
  }
}

void register_bank::reset() {
  stored_.clear();
  baseline_.clear();
  latch_.clear();
  locked_ = false;
  error_.clear();
}

}  // namespace sluice::regs
