// One parameter of each value type, named like a fabric's (owner null: the leaf is the name),
// for tests and fuzz targets that feed values to every type.
#pragma once
#include "models/core/params.h"

namespace sluice::test {

struct one_param_each {
  const param_spec<data_rate> rate_spec{"sw0.port1.rate", "link rate", {40e9}, {1e3}, {1e13}};
  const param_spec<byte_count> bytes_spec{"sw0.port1.pfc.xoff", "XOFF threshold", {1500}, {64}, {1ull << 40}};
  const param_spec<sc_core::sc_time> time_spec{"sw0.port1.pipeline", "pipeline latency", sc_core::SC_ZERO_TIME,
                                               sc_core::SC_ZERO_TIME, sc_core::sc_time(1, sc_core::SC_SEC)};
  const param_spec<double> number_spec{"sw0.mmu.alpha", "dynamic threshold", 0.5, 0.0, 64.0};
  const param_spec<uint64_t> count_spec{"h0.prio3.window", "frames", 8, 1, 1u << 20};
  const param_spec<bool> flag_spec{"h0.pacing", "pacing on", true, false, true};
  const choice_spec choice{"sw0.mmu.threshold", "threshold kind", "dynamic", {"static", "dynamic"}};
  param<data_rate> rate{nullptr, rate_spec};
  param<byte_count> bytes{nullptr, bytes_spec};
  param<sc_core::sc_time> time{nullptr, time_spec};
  param<double> number{nullptr, number_spec};
  param<uint64_t> count{nullptr, count_spec};
  param<bool> flag{nullptr, flag_spec};
  choice_param mode{nullptr, choice};
};

}  // namespace sluice::test
