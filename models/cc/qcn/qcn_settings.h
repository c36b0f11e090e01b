// QCN's scheme-wide parameters: settings that both the congestion points and the reaction points
// read, so one setting switches both ends. Declared once per run, by the scheme when it is chosen
// or by the first QCN role made, under no model: `qcn.path_ba`, `qcn.sonar`.
#pragma once
#include "models/core/params.h"

namespace sluice {

struct qcn_settings {
  // Path-based bandwidth available: the CP samples with Fb of either sign and sends an Fb99
  // push-back (a qFb = 0 CNM) while BA = 0; the RP pushes back one cycle on it and times its
  // increase with qcn.ba_timer.
  param<bool> path_ba;
  // SONAR: the CP echoes a probe while BA = 0; the RP probes after a cut and increases
  // hyper-actively when no CP echoes.
  param<bool> sonar;
  static const qcn_settings& get();

 private:
  qcn_settings();
};

}  // namespace sluice
