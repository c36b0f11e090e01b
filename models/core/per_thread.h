// Per-thread state of the models: a windowed run on several threads (event_queue::run_in_windows)
// drains partitions on each at once, each thread with its own clock, queue lane and pools.
//
// Hidden and initial-exec: an access is two instructions (the offset, then an fs-relative load; a
// global's is one), in the executable and in the Python module alike. The default model would
// call __tls_get_addr (or a TLS descriptor) in every function that reads one: 35 to 59
// instructions more a hop. Initial-exec puts the module's whole TLS block in the small static TLS
// a loaded library may use, so nothing large may share it (Verilator's runtime is a library of
// its own for this: models/CMakeLists.txt).
#pragma once

#define SLUICE_PER_THREAD [[gnu::visibility("hidden"), gnu::tls_model("initial-exec")]] inline thread_local
