#include "platforms/regs_cli.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "models/core/units.h"
#include "models/regs/regmap.h"

namespace sluice {
namespace {

using namespace regs;

const char* access_name(access a) {
  static const char* names[] = {"rw", "ro", "wo", "r2c", "w1c", "w1s", "pulse", "lock"};
  return names[static_cast<int>(a)];
}

std::string hex(uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%05x", v);
  return s;
}

std::string binding(const field_desc& f) {
  switch (f.kind) {
    case bind_kind::param:
      return std::string("param ") + f.bind;
    case bind_kind::stat:
      return std::string("stat ") + f.bind;
    case bind_kind::device:
      return std::string("device ") + f.bind;
    case bind_kind::constant:
      return f.bind;
    case bind_kind::none:
      return f.action[0] ? std::string("command ") + f.action : "stored";
  }
  return "";
}

std::string table(const device_desc& d, const block_desc* only) {
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%s register map, layout 0x%08x\n", d.name, d.layout);
  out << line;
  for (uint32_t b = 0; b < d.block_count; ++b) {
    const block_desc& blk = *d.blocks[b];
    if (only && only != &blk) continue;
    out << "\n" << blk.name << ": " << blk.title << ", base " << hex(blk.base);
    if (blk.instance_name[0])
      out << ", " << blk.instance_count << " x " << blk.instance_name << " every " << hex(blk.instance_stride);
    out << "\n";
    std::snprintf(line, sizeof line, "  %-8s %-28s %-6s %-15s %-6s %-6s %-8s %s\n", "offset", "register", "access",
                  "field", "bits", "reset", "unit", "bound to");
    out << line;
    for (uint32_t r = 0; r < blk.register_count; ++r) {
      const register_desc& reg = blk.registers[r];
      std::string name = reg.name;
      if (reg.array_name[0]) name += "[" + std::string(reg.array_name) + "<" + std::to_string(reg.array_count) + "]";
      if (reg.lockable) name += " (lockable)";
      for (uint8_t i = 0; i < reg.field_count; ++i) {
        const field_desc& f = reg.fields[i];
        const std::string bits = std::to_string(f.lsb + f.width - 1) + ":" + std::to_string(f.lsb);
        const std::string reset = f.kind == bind_kind::none ? std::to_string(f.reset) : "live";
        std::snprintf(line, sizeof line, "  %-8s %-28s %-6s %-15s %-6s %-6s %-8s %s\n",
                      i ? "" : hex(reg.offset).c_str(), i ? "" : name.c_str(), access_name(f.acc), f.name, bits.c_str(),
                      reset.c_str(), f.unit, binding(f).c_str());
        out << line;
      }
    }
  }
  return out.str();
}

nlohmann::ordered_json json(const device_desc& d, const block_desc* only) {
  nlohmann::ordered_json j;
  j["device"] = d.name;
  j["layout"] = d.layout;
  j["blocks"] = nlohmann::ordered_json::array();
  for (uint32_t b = 0; b < d.block_count; ++b) {
    const block_desc& blk = *d.blocks[b];
    if (only && only != &blk) continue;
    nlohmann::ordered_json jb{
        {"name", blk.name},
        {"title", blk.title},
        {"description", blk.description},
        {"base", blk.base},
        {"size", blk.size},
        {"layout", blk.layout},
        {"instances", {{"name", blk.instance_name}, {"count", blk.instance_count}, {"stride", blk.instance_stride}}}};
    jb["registers"] = nlohmann::ordered_json::array();
    for (uint32_t r = 0; r < blk.register_count; ++r) {
      const register_desc& reg = blk.registers[r];
      nlohmann::ordered_json jr{{"name", reg.name},
                                {"offset", reg.offset},
                                {"access", access_name(reg.acc)},
                                {"lockable", reg.lockable},
                                {"description", reg.description}};
      if (reg.array_name[0])
        jr["array"] = {{"name", reg.array_name}, {"count", reg.array_count}, {"stride", reg.array_stride}};
      if (reg.alias >= 0) jr["alias"] = blk.registers[reg.alias].name;
      jr["fields"] = nlohmann::ordered_json::array();
      for (uint8_t i = 0; i < reg.field_count; ++i) {
        const field_desc& f = reg.fields[i];
        nlohmann::ordered_json jf{{"name", f.name},
                                  {"lsb", f.lsb},
                                  {"width", f.width},
                                  {"access", access_name(f.acc)},
                                  {"unit", f.unit},
                                  {"bind", binding(f)},
                                  {"description", f.description}};
        if (f.kind == bind_kind::none) jf["reset"] = f.reset;
        for (uint8_t e = 0; e < f.enum_count; ++e) jf["enum"][f.enums[e].name] = f.enums[e].value;
        jr["fields"].push_back(jf);
      }
      jb["registers"].push_back(jr);
    }
    j["blocks"].push_back(jb);
  }
  return j;
}

}  // namespace

std::string register_map_text(const std::string& device, const std::string& format) {
  const device_desc* d = find_device(device.c_str());
  const block_desc* only = nullptr;
  std::string kinds;
  for (uint32_t i = 0; i < device_count() && !d; ++i)
    for (uint32_t b = 0; b < devices()[i]->block_count; ++b)
      if (device == devices()[i]->blocks[b]->name) {
        d = devices()[i];
        only = d->blocks[b];
      }
  if (!d) {
    for (uint32_t i = 0; i < device_count(); ++i) {
      kinds += std::string(i ? ", " : "") + devices()[i]->name;
      for (uint32_t b = 0; b < devices()[i]->block_count; ++b)
        kinds += std::string(", ") + devices()[i]->blocks[b]->name;
    }
    throw config_error("regs: '" + device + "' is no device kind or block (" + kinds + ")");
  }
  if (format == "table") return table(*d, only);
  if (format == "json") return json(*d, only).dump(2) + "\n";
  if (format == "c" || format == "md" || format == "rdl")
    return view_text(d->name, format == "c" ? "h" : format.c_str());
  throw config_error("--format: '" + format + "' is not one of table, json, c, md, rdl");
}

}  // namespace sluice
