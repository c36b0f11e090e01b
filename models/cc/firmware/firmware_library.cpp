#include "models/cc/firmware/firmware_library.h"

#include <dlfcn.h>
#include <elf.h>

#include <cstring>
#include <fstream>
#include <map>
#include <memory>

namespace sluice {
namespace {
// The start files' own data (crtstuff: the "already ran" flag, the DSO handle, the TM clone
// table's end): in every shared object, written only by the C runtime.
bool runtime_symbol(const std::string& name) {
  return name == "completed.0" || name == "__dso_handle" || name == "__TMC_END__";
}
bool writable_data_section(const std::string& name) {
  auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (starts(".data.rel.ro")) return false;  // relocated at load, then read-only (RELRO)
  return starts(".data") || starts(".bss") || starts(".tdata") || starts(".tbss");
}
std::string without_local_suffix(const std::string& name) {  // "count.1": a function's static
  const auto dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(0, dot) + " (a static variable)";
}
}  // namespace

std::string writable_global_of(const std::string& path, const std::string& key) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto fail = [&](const std::string& why) { return config_error(key + ": '" + path + "' " + why); };
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0 ||
      bytes[EI_CLASS] != ELFCLASS64)
    throw fail("is not a 64-bit ELF shared object");
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  auto section = [&](std::size_t i) {
    Elf64_Shdr sh{};
    const std::size_t at = eh.e_shoff + i * eh.e_shentsize;
    if (at + sizeof sh > bytes.size()) throw fail("has a truncated section table");
    std::memcpy(&sh, bytes.data() + at, sizeof sh);
    return sh;
  };
  auto text_at = [&](const Elf64_Shdr& strtab, std::size_t off) {
    const std::size_t at = strtab.sh_offset + off;
    if (at >= bytes.size()) throw fail("has a truncated string table");
    return std::string(bytes.data() + at, strnlen(bytes.data() + at, bytes.size() - at));
  };
  if (eh.e_shstrndx >= eh.e_shnum) throw fail("has no section names");
  const Elf64_Shdr names = section(eh.e_shstrndx);
  for (std::size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr symtab = section(i);
    if (symtab.sh_type != SHT_SYMTAB) continue;
    const Elf64_Shdr strtab = section(symtab.sh_link);
    for (std::size_t at = symtab.sh_offset; at + sizeof(Elf64_Sym) <= symtab.sh_offset + symtab.sh_size;
         at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      if (at + sizeof sym > bytes.size()) throw fail("has a truncated symbol table");
      std::memcpy(&sym, bytes.data() + at, sizeof sym);
      const int type = ELF64_ST_TYPE(sym.st_info);
      if ((type != STT_OBJECT && type != STT_TLS) || sym.st_size == 0) continue;
      if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= eh.e_shnum) continue;
      const std::string sec = text_at(names, section(sym.st_shndx).sh_name);
      const std::string name = text_at(strtab, sym.st_name);
      if (writable_data_section(sec) && !runtime_symbol(name)) return without_local_suffix(name) + " in " + sec;
    }
    return "";
  }
  throw fail(
      "has no symbol table to check for writable global data (do not strip it, or declare "
      "SLUICE_FW_SINGLE_INSTANCE)");
}

std::vector<std::string> firmware_library::shipped() {
  return {"dcqcn", "dcqcn-fixed", "timely", "rtt-probe", "control-plane"};
}

firmware_library& firmware_library::load(const std::string& text, const std::string& key) {
  static std::map<std::string, std::unique_ptr<firmware_library>> loaded;
  std::string path = text;
  if (text.find('/') == std::string::npos && text.find(".so") == std::string::npos) {
    bool known = false;
    for (const std::string& s : shipped()) known |= s == text;
    if (!known) {
      std::string list;
      for (const std::string& s : shipped()) list += (list.empty() ? "" : ", ") + s;
      throw config_error(key + ": '" + text + "' is neither a path to a firmware library nor a shipped example (" +
                         list + ")");
    }
    path = std::string(SLUICE_FIRMWARE_DIR) + "/libsluice_fw_" + text + ".so";
  }
  auto it = loaded.find(path);
  if (it == loaded.end())
    it = loaded.emplace(path, std::unique_ptr<firmware_library>(new firmware_library(path, key))).first;
  return *it->second;
}

firmware_library::firmware_library(const std::string& path, const std::string& key) : path_(path) {
  auto fail = [&](const std::string& why) { return config_error(key + ": '" + path + "' " + why); };
  if (!std::ifstream(path).good()) throw fail("does not exist or cannot be read");
  const std::string global = writable_global_of(path, key);
  // Before dlopen: a library refused here runs none of its code (its constructors included).
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::string why = dlerror();
    for (char& c : why)
      if (c == '\n') c = ' ';
    throw fail("cannot be loaded: " + why);
  }
  desc_ = static_cast<const sluice_fw_descriptor*>(dlsym(handle, SLUICE_FW_DESCRIPTOR_NAME));
  if (!desc_) throw fail("exports no " SLUICE_FW_DESCRIPTOR_NAME " (the firmware descriptor)");
  const sluice_fw_descriptor& d = *desc_;
  if (d.hal_major != SLUICE_FW_HAL_MAJOR)
    throw fail("was built against HAL " + std::to_string(d.hal_major) + "." + std::to_string(d.hal_minor) +
               "; this Sluice has HAL " + std::to_string(SLUICE_FW_HAL_MAJOR) + "." +
               std::to_string(SLUICE_FW_HAL_MINOR) + " (rebuild it against sluice_fw_hal.h)");
  if (!global.empty() && !single_instance())
    throw fail("keeps writable global data (" + global +
               "): every NIC would share it; keep state in the instance or flow context, or declare "
               "SLUICE_FW_SINGLE_INSTANCE");
  if (!d.on_event) throw fail("has no on_event handler");
  if ((d.param_count && !d.params) || (d.counter_count && !d.counters))
    throw fail("has a null parameter or counter table");
  for (uint32_t i = 0; i < d.param_count; ++i) {
    const sluice_fw_param_desc& p = d.params[i];
    if (!p.name || !*p.name) throw fail("has parameter " + std::to_string(i) + " without a name");
    if (p.min > p.max || p.default_value < p.min || p.default_value > p.max)
      throw fail("parameter '" + std::string(p.name) + "': default " + std::to_string(p.default_value) +
                 " is outside its range [" + std::to_string(p.min) + ", " + std::to_string(p.max) + "]");
    for (uint32_t j = 0; j < i; ++j)
      if (d.params[j].id == p.id) throw fail("declares parameter id " + std::to_string(p.id) + " twice");
    texts_.push_back("firmware." + std::string(p.name));
    param_specs_.push_back(
        param_spec<uint64_t>{texts_.back().c_str(), p.description ? p.description : "", p.default_value, p.min, p.max});
  }
  for (uint32_t i = 0; i < d.counter_count; ++i) {
    const sluice_fw_counter_desc& c = d.counters[i];
    if (!c.name || !*c.name) throw fail("has counter " + std::to_string(i) + " without a name");
    texts_.push_back(c.name);
    counter_descs_.push_back(
        stat_desc{texts_.back().c_str(), "events", c.description ? c.description : "",
                  [](const void* m, int) { return static_cast<double>(*static_cast<const uint64_t*>(m)); }});
  }
}

void firmware_library::take_instance(const std::string& nic) {
  if (!single_instance()) return;
  if (!first_instance_.empty() && first_instance_ != nic)
    throw config_error(nic + ".firmware: '" + path_ + "' declares SLUICE_FW_SINGLE_INSTANCE and already runs on " +
                       first_instance_);
  first_instance_ = nic;
}

}  // namespace sluice
