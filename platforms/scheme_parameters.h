// The parameters of congestion-control schemes a run does not use. A scheme's roles declare their
// parameters when they are made, on the switch ports and NICs that run them, so a setting for a
// scheme no flow runs ("*.qcn.gd" under --cc dcqcn) matches no parameter. To tell it (a setting
// with no effect: platforms/inert_settings.*) from a typo (no parameter matches), a census makes
// every registered congestion, notification and reaction point once on a scratch owner, notes the
// parameters it declares (leaf, per class or not) and destroys it again, forgetting the statistics
// it registered. It runs once per process, and only when a pattern matched nothing. A scheme's
// scheme-wide parameters (cc_scheme::declare, "qcn.path_ba") are process-wide: the census leaves
// them declared, unread.
#pragma once
#include <string>

namespace sluice {

class fabric;

// Why `pattern`, which matched no parameter, has no effect: it names a parameter that a role policy
// declares where it runs, on an owner of this fabric that does not run it. "it belongs to scheme
// 'qcn', which no flow of this run uses (<in_use>)" when no owner runs the policy and a scheme not
// in use has it; else "it is a parameter of the reaction point 'dcqcn', and r0.rp is 'none'". ""
// when the pattern names no such parameter (a typo). `in_use` words the schemes in use ("--cc
// dcqcn").
std::string unused_scheme_reason(const std::string& pattern, const fabric& f, const std::string& in_use);

}  // namespace sluice
