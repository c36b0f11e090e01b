#include "models/cc/asm/asm_settings.h"

namespace sluice {

asm_settings::asm_settings()
    : w{nullptr,
        [] {
          return param_spec<double>{"asm.w",
                                    "asm: weight w of Qdelta in the boundary function sigma = Qoff + w*Qdelta, at the "
                                    "RP (the paper: 'relatively large')",
                                    4.0, 0.0, 64.0};
        }},
      qoff_quantum{nullptr,
                   [] {
                     return param_spec<byte_count>{"asm.qoff_quantum",
                                                   "asm: bytes per step of the 8-bit Qoff field (range +/-127 steps)",
                                                   byte_count{1024}, byte_count{1}, byte_count{1ull << 24}};
                   }},
      qdelta_quantum{nullptr, [] {
                       return param_spec<byte_count>{
                           "asm.qdelta_quantum", "asm: bytes per step of the 8-bit Qdelta field (range +/-127 steps)",
                           byte_count{256}, byte_count{1}, byte_count{1ull << 24}};
                     }} {}

const asm_settings& asm_settings::get() {
  static const asm_settings s;
  return s;
}

}  // namespace sluice
