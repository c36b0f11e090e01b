#include "models/cc/qcn/qcn_settings.h"

namespace sluice {
namespace {
const param_spec<bool> path_ba_spec{
    "qcn.path_ba",
    "qcn: path-based bandwidth available, both ends: the CP samples with Fb of either sign and sends an Fb99 "
    "push-back (qFb = 0 CNM) for a sample with Fb >= 0 while BA = 0; the RP pushes back one cycle on it and restarts "
    "its timer, whose period is qcn.ba_timer (seed qcn-transient-response)",
    false, false, true};
const param_spec<bool> sonar_spec{
    "qcn.sonar",
    "qcn: SONAR, both ends: the CP echoes a probe frame to its source (a qFb = 0 CNM) while BA = 0 (ba_threshold, "
    "ba_time); the RP probes the path after a cut and increases hyper-actively when no CP echoes (seed "
    "qcn-transient-response)",
    false, false, true};
}  // namespace

qcn_settings::qcn_settings() : path_ba(nullptr, path_ba_spec), sonar(nullptr, sonar_spec) {}

const qcn_settings& qcn_settings::get() {
  static const qcn_settings s;
  return s;
}

}  // namespace sluice
