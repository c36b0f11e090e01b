#include "models/switch/mmu.h"

namespace sluice {

mmu_port_params::mmu_port_params(const std::string& port)
    : reserve(port + ".pfc.reserve", byte_count{0}, "guaranteed buffer per priority group", byte_count{0},
              byte_count{1ull << 30}),
      xoff(port + ".pfc.xoff", byte_count{48 * 1024},
           "static threshold: shared bytes a priority group may hold before XOFF (threshold=static)", byte_count{0},
           byte_count{1ull << 34}),
      xon_offset(port + ".pfc.xon_offset", byte_count{3000},
                 "XON when the group's shared use falls this far below its threshold (2 MTU)", byte_count{0},
                 byte_count{1ull << 30}),
      // 32 KiB stands until the fabric derives the default from the port's link (derive_defaults).
      // Up to 16 TiB: the derived default of a legal 1 s link at 10 Tb/s still fits.
      headroom(port + ".pfc.headroom", byte_count{32 * 1024},
               "bytes a lossless priority group absorbs after XOFF (default: 2 x delay x rate + response x rate + 3 "
               "max frames + 64 B)",
               byte_count{0}, byte_count{1ull << 44}) {}

mmu::mmu(sc_core::sc_module_name name, const std::vector<std::string>& port_names, int classes)
    : sc_module(name),
      buffer(std::string(this->name()) + ".buffer", byte_count{12ull << 20}, "shared buffer pool size", byte_count{0},
             byte_count{1ull << 36}),
      threshold_mode(std::string(this->name()) + ".threshold", "dynamic",
                     "per-group shared limit: a static byte count (port.pfc.xoff) or alpha x free pool",
                     {"static", "dynamic"}),
      alpha(std::string(this->name()) + ".alpha", 0.125,
            "dynamic-threshold factor of lossless priority groups (SONiC Broadcom: 1/8)", 1.0 / 1024, 1024.0),
      alpha_lossy(std::string(this->name()) + ".alpha_lossy", 8.0,
                  "dynamic-threshold factor of lossy priority groups (SONiC Broadcom: 8)", 1.0 / 1024, 1024.0),
      cell(std::string(this->name()) + ".cell", byte_count{1},
           "buffer allocation unit; frames occupy whole cells (1 B: exact bytes; SONiC: Spectrum-1 96 B, Spectrum-2/3 "
           "144 B)",
           byte_count{1}, byte_count{16384}),
      classes_(classes) {
  std::string owner = std::string(this->name());
  owner = owner.substr(0, owner.rfind('.'));  // parameters of priorities live on the switch
  for (int i = 0; i < classes_; ++i)
    lossless.push_back(std::make_unique<param<bool>>(owner + ".prio" + std::to_string(i) + ".lossless", true,
                                                     "PFC-protected (lossless) priority", false, true));
  for (std::size_t p = 0; p < port_names.size(); ++p) ports.push_back(std::make_unique<mmu_port_params>(port_names[p]));
}

// Built at simulation start so parameter overrides applied after elaboration take effect.
void mmu::start_of_simulation() {
  buffer_config bc{buffer().bytes, threshold_mode() == "dynamic", cell().bytes};
  std::vector<pg_config> pgs;
  for (auto& pp : ports)
    for (int i = 0; i < classes_; ++i)
      pgs.push_back(pg_config{is_lossless(i), is_lossless(i) ? alpha() : alpha_lossy(), pp->reserve().bytes,
                              pp->xoff().bytes, pp->xon_offset().bytes, pp->headroom().bytes});
  state_ = std::make_unique<shared_buffer>(static_cast<int>(ports.size()), classes_, bc, std::move(pgs));
  state_->set_listener(listener_);
}

bool mmu::admit(int port, int priority, uint32_t bytes, bool& xoff_due) {
  return state_->admit(port, priority, bytes, xoff_due) == admit_verdict::admitted;
}

}  // namespace sluice
