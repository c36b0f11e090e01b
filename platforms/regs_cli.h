// `sluice regs DEVICE`: a device kind's register map (switch, nic; or one block of it, such
// as switch_port) as a table, JSON, or the generated views (C header, Markdown, SystemRDL).
#pragma once
#include <string>

namespace sluice {

// The map in `format` (table, json, c, md, rdl); config_error names an unknown device or format.
std::string register_map_text(const std::string& device, const std::string& format);

}  // namespace sluice
