// A firmware library (docs/cosimulation.md): a shared object exporting one sluice_fw_descriptor
// (sluice_fw_hal.h), loaded once per path with dlopen and shared by every NIC that names it. The
// loader checks, before any code of the library runs a handler: the file and the descriptor
// symbol, the HAL major version, the descriptor's tables (parameter defaults within their range),
// and that the library keeps no writable global data (an ELF symbol check over .data and .bss),
// since a plain dlopen shares its globals between NICs; a library that declares
// SLUICE_FW_SINGLE_INSTANCE is exempt and may serve one NIC only.
#pragma once
#include <deque>
#include <string>
#include <vector>

#include "models/cc/firmware/sluice_fw_hal.h"
#include "models/core/params.h"
#include "models/core/stats.h"

namespace sluice {

class firmware_library {
 public:
  // `text` is a path to a .so, or the name of a shipped example ("dcqcn"); `key` names the
  // parameter for errors. Loaded once per resolved path for the process. Throws config_error.
  static firmware_library& load(const std::string& text, const std::string& key);
  // The shipped examples' names, for errors and docs.
  static std::vector<std::string> shipped();

  const sluice_fw_descriptor& descriptor() const { return *desc_; }
  const std::string& path() const { return path_; }
  std::string name() const { return desc_->name ? desc_->name : path_; }
  bool single_instance() const { return desc_->flags & SLUICE_FW_SINGLE_INSTANCE; }
  // The parameters' specs ("firmware.<name>", the descriptor's range and default) and the
  // counters' statistics, kept for the process: instances refer to them.
  const std::vector<param_spec<uint64_t>>& param_specs() const { return param_specs_; }
  const std::vector<stat_desc>& counter_descs() const { return counter_descs_; }
  // A NIC takes an instance; a single-instance library refuses a second (config_error).
  void take_instance(const std::string& nic);

 private:
  firmware_library(const std::string& path, const std::string& key);
  std::string path_;
  const sluice_fw_descriptor* desc_ = nullptr;
  std::deque<std::string> texts_;  // leaf names, stable addresses
  std::vector<param_spec<uint64_t>> param_specs_;
  std::vector<stat_desc> counter_descs_;
  std::string first_instance_;
};

// The first writable global data symbol of the ELF shared object at `path` ("name (section)"),
// "" if none. Throws config_error (prefixed by `key`) if the file is not a readable ELF object
// or has no symbol table to check.
std::string writable_global_of(const std::string& path, const std::string& key);

}  // namespace sluice
