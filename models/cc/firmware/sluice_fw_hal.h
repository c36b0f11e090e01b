/* Sluice firmware HAL: the C interface between congestion-control firmware and the simulator
 * (docs/cosimulation.md). C99, no C++ types, so that device code compiles against it unchanged.
 *
 * A firmware is a shared library exporting one object, SLUICE_FW_DESCRIPTOR (a
 * sluice_fw_descriptor). The simulator loads it once per path and runs one instance per NIC:
 * all mutable state lives in memory the simulator provides (the instance state, one context per
 * flow, both zeroed before first use), never in the library's globals. A library with writable
 * global data is refused unless its descriptor sets SLUICE_FW_SINGLE_INSTANCE.
 *
 * Handlers run in zero simulated time; the simulator charges each event a service time
 * (<nic>.firmware.latency on <nic>.firmware.units processing units) and applies the results
 * when the event completes. Events, results and services are reached only through the
 * functions below, so their layouts may change without breaking a compiled firmware.
 *
 * Versioning: a firmware built against major M loads only into a simulator of major M; a minor
 * adds functions at the end of sluice_fw_hal (check hal->size before calling a newer one). */
#ifndef SLUICE_FW_HAL_H
#define SLUICE_FW_HAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SLUICE_FW_HAL_MAJOR 1
#define SLUICE_FW_HAL_MINOR 1

/* The exported descriptor's symbol name. */
#define SLUICE_FW_DESCRIPTOR sluice_fw_descriptor_v1
#define SLUICE_FW_DESCRIPTOR_NAME "sluice_fw_descriptor_v1"

/* A rate as hardware holds it: a fixed-point fraction of the line rate, SLUICE_FW_RATE_ONE
 * being the line rate (20 fractional bits, as programmable NICs' rate registers). */
#define SLUICE_FW_RATE_ONE (1u << 20)

/* Event types. */
typedef enum sluice_fw_event_type {
  SLUICE_FW_EV_TX = 0,         /* the flow started a data frame: bytes, seq */
  SLUICE_FW_EV_ACK = 1,        /* a transport ACK: seq (the acknowledged end offset) */
  SLUICE_FW_EV_NACK = 2,       /* a transport NACK: seq (no Sluice model sends one yet) */
  SLUICE_FW_EV_CNP = 3,        /* a RoCE CNP: ecn (the CNP's IPv4 ECN bits) */
  SLUICE_FW_EV_CNM = 4,        /* an 802.1Qau CNM: fb (quantized, 0..63), qoff, qdelta, cpid */
  SLUICE_FW_EV_BCN = 5,        /* a BCN/ECM message (CNM version 1): qoff, qdelta, cpid */
  SLUICE_FW_EV_FECN = 6,       /* an InfiniBand FECN (receive side: not delivered to a sender) */
  SLUICE_FW_EV_BECN = 7,       /* an InfiniBand BECN */
  SLUICE_FW_EV_RTT = 8,        /* the response to the flow's RTT probe: rtt_ps */
  SLUICE_FW_EV_FLOW_START = 9, /* the flow's first frame is about to start */
  SLUICE_FW_EV_FLOW_END = 10,  /* a finite flow's last frame started */
  SLUICE_FW_EV_TIMER = 11,     /* the flow's timer (sluice_fw_set_timer) expired */
  SLUICE_FW_EV_IRQ = 12,       /* 1.1: the device's interrupt (INT_STATUS & INT_ENABLE): cause; no flow */
  SLUICE_FW_EV_COUNT = 13
} sluice_fw_event_type;

/* Descriptor flags. */
#define SLUICE_FW_SINGLE_INSTANCE 1u /* the library keeps state in its globals: one NIC only */

typedef struct sluice_fw_event sluice_fw_event;   /* opaque */
typedef struct sluice_fw_result sluice_fw_result; /* opaque */
struct sluice_fw_hal;

/* What a handler gets: the services, its instance state and (for a flow's event) the flow's
 * context and id. The simulator owns all three memories. */
typedef struct sluice_fw_ctx {
  const struct sluice_fw_hal* hal;
  void* state;      /* state_size bytes, one per NIC */
  void* flow;       /* flow_context_size bytes, one per flow; NULL in init, mailbox and device events (IRQ) */
  uint32_t flow_id; /* UINT32_MAX in init, mailbox and device events */
  void* sim;        /* the simulator's, pass it back through the hal only */
} sluice_fw_ctx;

/* The services and accessors. Call them through the inline wrappers below. */
typedef struct sluice_fw_hal {
  uint32_t size; /* sizeof(sluice_fw_hal) of the simulator: later minors add at the end */
  uint16_t major, minor;
  /* services */
  uint64_t (*now_ps)(const sluice_fw_ctx* c);
  uint64_t (*random_u64)(const sluice_fw_ctx* c); /* seeded by the run's seed, NIC and flow */
  void (*log)(const sluice_fw_ctx* c, const char* message);
  uint64_t (*param)(const sluice_fw_ctx* c, uint32_t id); /* the value of parameter `id` */
  void (*count)(const sluice_fw_ctx* c, uint32_t id, uint64_t delta);
  double (*line_rate_bps)(const sluice_fw_ctx* c);
  /* register access to the NIC's register map (sluice_regs_nic.h): 0 on success; SLUICE_FW_EREG if
   * the register refused a write (read-only, locked, a value out of range); an unmapped address
   * stops the run */
  int (*reg_read)(const sluice_fw_ctx* c, uint32_t address, uint32_t* value);
  int (*reg_write)(const sluice_fw_ctx* c, uint32_t address, uint32_t value);
  /* event accessors */
  uint32_t (*event_type)(const sluice_fw_event* e);
  uint64_t (*event_time_ps)(const sluice_fw_event* e); /* when it arrived (before queueing) */
  uint32_t (*event_count)(const sluice_fw_event* e);   /* events coalesced into this one (>= 1) */
  uint64_t (*event_bytes)(const sluice_fw_event* e);   /* TX: wire bytes (summed if coalesced) */
  uint64_t (*event_seq)(const sluice_fw_event* e);
  uint32_t (*event_ecn)(const sluice_fw_event* e);
  uint32_t (*event_fb)(const sluice_fw_event* e);
  int32_t (*event_qoff)(const sluice_fw_event* e);
  int32_t (*event_qdelta)(const sluice_fw_event* e);
  uint64_t (*event_cpid)(const sluice_fw_event* e);
  uint64_t (*event_rtt_ps)(const sluice_fw_event* e);
  /* results */
  void (*set_rate)(sluice_fw_result* r, uint32_t fraction); /* of SLUICE_FW_RATE_ONE, > 0 */
  void (*set_rate_bps)(sluice_fw_result* r, double bps);    /* exact, (0, line rate] */
  void (*set_window)(sluice_fw_result* r, uint64_t bytes);
  void (*request_probe)(sluice_fw_result* r);
  void (*set_timer)(sluice_fw_result* r, uint64_t at_ps); /* a pending earlier timer stays */
  /* 1.1 */
  uint32_t (*event_cause)(const sluice_fw_event* e); /* IRQ: the INT_STATUS bits enabled and set */
} sluice_fw_hal;

#define SLUICE_FW_ENOREGS (-19) /* reg_read/reg_write: no register map is attached */
#define SLUICE_FW_EREG (-22)    /* reg_write: the register refused the write */

typedef struct sluice_fw_param_desc {
  uint32_t id;
  const char* name; /* <nic>.firmware.<name> */
  const char* description;
  uint64_t min, max, default_value;
} sluice_fw_param_desc;

typedef struct sluice_fw_counter_desc {
  uint32_t id;
  const char* name; /* statistic <nic>.firmware.<name> */
  const char* description;
} sluice_fw_counter_desc;

/* Handlers return 0, or a non-zero code the simulator reports as the firmware's failure. */
typedef struct sluice_fw_descriptor {
  uint16_t hal_major, hal_minor; /* SLUICE_FW_HAL_MAJOR, SLUICE_FW_HAL_MINOR */
  const char* name;
  const char* description;
  uint32_t flags; /* SLUICE_FW_SINGLE_INSTANCE */
  uint32_t state_size, flow_context_size;
  const sluice_fw_param_desc* params;
  uint32_t param_count;
  const sluice_fw_counter_desc* counters;
  uint32_t counter_count;
  int (*init)(sluice_fw_ctx* c); /* once per NIC, before the first event; may be NULL */
  int (*on_event)(sluice_fw_ctx* c, const sluice_fw_event* e, sluice_fw_result* r);
  int (*on_timer)(sluice_fw_ctx* c, sluice_fw_result* r); /* NULL: timers go to on_event */
  /* A message from the host (a test, a script); reply up to reply_capacity bytes. May be NULL. */
  int (*on_mailbox)(sluice_fw_ctx* c, const void* message, uint32_t length, void* reply, uint32_t reply_capacity,
                    uint32_t* reply_length);
} sluice_fw_descriptor;

/* Inline wrappers: what firmware code calls. */
static inline uint64_t sluice_fw_now_ps(const sluice_fw_ctx* c) { return c->hal->now_ps(c); }
static inline uint64_t sluice_fw_random(const sluice_fw_ctx* c) { return c->hal->random_u64(c); }
static inline void sluice_fw_log(const sluice_fw_ctx* c, const char* message) { c->hal->log(c, message); }
static inline uint64_t sluice_fw_param(const sluice_fw_ctx* c, uint32_t id) { return c->hal->param(c, id); }
static inline void sluice_fw_count(const sluice_fw_ctx* c, uint32_t id, uint64_t delta) { c->hal->count(c, id, delta); }
static inline double sluice_fw_line_rate_bps(const sluice_fw_ctx* c) { return c->hal->line_rate_bps(c); }
static inline int sluice_fw_reg_read(const sluice_fw_ctx* c, uint32_t address, uint32_t* value) {
  return c->hal->reg_read(c, address, value);
}
static inline int sluice_fw_reg_write(const sluice_fw_ctx* c, uint32_t address, uint32_t value) {
  return c->hal->reg_write(c, address, value);
}
static inline sluice_fw_event_type sluice_fw_event_type_of(const sluice_fw_ctx* c, const sluice_fw_event* e) {
  return (sluice_fw_event_type)c->hal->event_type(e);
}
static inline uint64_t sluice_fw_event_time_ps(const sluice_fw_ctx* c, const sluice_fw_event* e) {
  return c->hal->event_time_ps(e);
}
static inline uint32_t sluice_fw_event_count(const sluice_fw_ctx* c, const sluice_fw_event* e) {
  return c->hal->event_count(e);
}
static inline uint64_t sluice_fw_event_bytes(const sluice_fw_ctx* c, const sluice_fw_event* e) {
  return c->hal->event_bytes(e);
}
static inline uint64_t sluice_fw_event_seq(const sluice_fw_ctx* c, const sluice_fw_event* e) {
  return c->hal->event_seq(e);
}
static inline uint32_t sluice_fw_event_ecn(const sluice_fw_ctx* c, const sluice_fw_event* e) {
  return c->hal->event_ecn(e);
}
static inline uint32_t sluice_fw_event_fb(const sluice_fw_ctx* c, const sluice_fw_event* e) {
  return c->hal->event_fb(e);
}
static inline int32_t sluice_fw_event_qoff(const sluice_fw_ctx* c, const sluice_fw_event* e) {
  return c->hal->event_qoff(e);
}
static inline int32_t sluice_fw_event_qdelta(const sluice_fw_ctx* c, const sluice_fw_event* e) {
  return c->hal->event_qdelta(e);
}
static inline uint64_t sluice_fw_event_cpid(const sluice_fw_ctx* c, const sluice_fw_event* e) {
  return c->hal->event_cpid(e);
}
static inline uint64_t sluice_fw_event_rtt_ps(const sluice_fw_ctx* c, const sluice_fw_event* e) {
  return c->hal->event_rtt_ps(e);
}
/* HAL 1.1 (hal->size covers event_cause): the cause bits of an IRQ event, 0 for other events. */
static inline uint32_t sluice_fw_event_cause(const sluice_fw_ctx* c, const sluice_fw_event* e) {
  return c->hal->size > offsetof(sluice_fw_hal, event_cause) ? c->hal->event_cause(e) : 0;
}
static inline void sluice_fw_set_rate(const sluice_fw_ctx* c, sluice_fw_result* r, uint32_t fraction) {
  c->hal->set_rate(r, fraction);
}
static inline void sluice_fw_set_rate_bps(const sluice_fw_ctx* c, sluice_fw_result* r, double bps) {
  c->hal->set_rate_bps(r, bps);
}
static inline void sluice_fw_set_window(const sluice_fw_ctx* c, sluice_fw_result* r, uint64_t bytes) {
  c->hal->set_window(r, bytes);
}
static inline void sluice_fw_request_probe(const sluice_fw_ctx* c, sluice_fw_result* r) { c->hal->request_probe(r); }
static inline void sluice_fw_set_timer(const sluice_fw_ctx* c, sluice_fw_result* r, uint64_t at_ps) {
  c->hal->set_timer(r, at_ps);
}

#ifdef __cplusplus
}
#endif
#endif /* SLUICE_FW_HAL_H */
