// ASM's scheme-wide parameters: what both ends must agree on to read a feedback. The congestion
// point quantizes Qoff and Qdelta with the quanta, the reaction point decodes them and combines
// them with w into sigma = Qoff + w Qdelta. Declared once per run under no model: `asm.w`,
// `asm.qoff_quantum`, `asm.qdelta_quantum`. See docs/models/asm.md.
#pragma once
#include "models/core/params.h"
#include "models/core/units.h"

namespace sluice {

struct asm_settings {
  param<double> w;
  param<byte_count> qoff_quantum, qdelta_quantum;
  static const asm_settings& get();

 private:
  asm_settings();
};

}  // namespace sluice
