// ECM's scheme-wide parameter: the weight w of the queue growth, which the congestion point uses
// to compute Fb and the reaction point to recombine it from a BCN's Qoff and Qdelta, so both ends
// read one setting. Declared once per run under no model: `ecm.w`.
#pragma once
#include "models/core/params.h"

namespace sluice {

struct ecm_settings {
  param<double> w;
  static const ecm_settings& get();

 private:
  ecm_settings();
};

}  // namespace sluice
