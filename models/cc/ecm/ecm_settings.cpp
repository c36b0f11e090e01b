#include "models/cc/ecm/ecm_settings.h"

namespace sluice {
namespace {
const param_spec<double> w_spec{
    "ecm.w", "ecm: weight w of the queue growth in Fb = -(Qoff + w*Qdelta), at the CP and the RP (tutorial: 2)", 2.0,
    0.0, 64.0};
}  // namespace

ecm_settings::ecm_settings() : w(nullptr, w_spec) {}

const ecm_settings& ecm_settings::get() {
  static const ecm_settings s;
  return s;
}

}  // namespace sluice
