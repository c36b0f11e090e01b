// DCQCN reaction-point update (Zhu et al., SIGCOMM'15) in the shape of a hardware congestion-control
// engine (Tonic, NSDI'20): a flow's context is read from the flow table, updated by one event, and
// written back. Two functions: `incoming` (a CNP arrived) and `timeout` (the alpha timer, the rate
// timer, the byte counter, the rate-decrease tick). The rules are those of the floating-point
// model (models/cc/dcqcn/dcqcn_rp.h); the arithmetic is the chip's, below.
//
// Widths and rounding (docs/rtl.md, "The DCQCN reaction-point block"):
//   rates    21 bits, units of line rate / 2^20: 2^20 is the line rate (the cap), 1 LSB at 100 Gb/s
//            is 95 kb/s. rc, rt, R_AI, R_HAI and the minimum rate are all in these units.
//   alpha    16 bits, units of 2^-16, saturating at 65535 (1 - 2^-16): 1.0 is not representable.
//   g        16 bits, units of 2^-16 (1/256 = 256; ConnectX's 5/1024 = 320).
//   stages   8 bits each (timer and byte stage), saturating at 255; F 8 bits.
//   cut      rc <- max(rc - floor(rc x alpha / 2^17), min_rate): the product truncated, so the
//            cut rounds the new rate up.
//   alpha    raise: min(alpha - floor(alpha x g / 2^16) + g, 65535); decay: alpha - floor(alpha x g
//            / 2^16). Truncation leaves alpha at 2^16 / g - 1 once decayed (255 for g = 1/256).
//   increase rt <- min(rt + step, 2^20); rc <- min(ceil((rt + rc) / 2), 2^20): rounding the mean up
//            makes rc reach rt (and the line rate) in finitely many steps, as the real numbers do.
//
// Handshake: the event and the context are held from `start` until `valid`; `valid` (with ctx_out)
// is held until a clock with `take`. Every event answers after one rising edge.
`default_nettype none

module sluice_dcqcn_rp (
    input wire clk,
    input wire rst,  // synchronous, active high
    // The request: held from start until valid.
    input wire start,
    input wire [2:0] event_kind,  // 0 CNP (note and cut), 1 CNP noted (cut deferred), 2 rate-decrease
                                  // tick (the deferred cut), 3 alpha timer, 4 rate timer, 5 byte counter
    input wire [75:0] ctx_in,  // the flow's packed context (ctx_t)
    // Configuration: held between requests.
    input wire [15:0] g,
    input wire [20:0] rai,
    input wire [20:0] rhai,
    input wire [20:0] min_rate,
    input wire [7:0] fast_recovery,
    input wire [5:0] rules,  // {cut_after_alpha, per_window, hyper_step_fixed, hyper_timer,
                             //  clamp_after_time_inc, clamp_target}
    // The answer.
    input wire take,
    output logic valid,
    output logic [75:0] ctx_out,
    output logic [20:0] rate  // the new current rate (ctx_out's rc): the flow's rate limiter
);
  localparam logic [20:0] LINE = 21'(1 << 20);

  typedef struct packed {
    logic [20:0] rc;  // current rate
    logic [20:0] rt;  // target rate
    logic [15:0] alpha;
    logic [7:0] timer_stage;
    logic [7:0] byte_stage;
    logic time_inc;  // a rate-timer event since the last cut
    logic cnp_in_window;  // per-window alpha: a CNP since the window opened
  } ctx_t;

  // The update is computed in functions called from the clocked process, so that a cycle-based
  // simulator evaluates it once per rising edge (docs/rtl.md, measured costs).

  function automatic logic [15:0] raised(logic [15:0] a);
    logic [16:0] next = 17'(a) - 17'((32'(a) * 32'(g)) >> 16) + 17'(g);
    return next > 17'(16'hffff) ? 16'hffff : next[15:0];
  endfunction

  function automatic logic [15:0] decayed(logic [15:0] a);
    return a - 16'((32'(a) * 32'(g)) >> 16);
  endfunction

  function automatic ctx_t cut(ctx_t c);
    ctx_t n = c;
    logic [20:0] reduced;
    logic per_cnp = !rules[4];
    if (rules[0] || (rules[1] && c.time_inc)) n.rt = c.rc;
    if (per_cnp && rules[5]) n.alpha = raised(c.alpha);
    reduced = c.rc - 21'((37'(c.rc) * 37'(n.alpha)) >> 17);
`ifdef SLUICE_MUTANT_CUT
    // The mutation test's broken variant: one wrong bit in the cut rate.
    reduced = reduced ^ 21'(1 << 9);
`endif
    n.rc = reduced < min_rate ? min_rate : reduced;
    if (per_cnp && !rules[5]) n.alpha = raised(c.alpha);
    n.timer_stage = '0;
    n.byte_stage = '0;
    n.time_inc = 1'b0;
    return n;
  endfunction

  function automatic ctx_t increase(ctx_t c);
    ctx_t n = c;
    logic [7:0] hi = c.timer_stage > c.byte_stage ? c.timer_stage : c.byte_stage;
    logic [7:0] lo = c.timer_stage > c.byte_stage ? c.byte_stage : c.timer_stage;
    logic [7:0] past_f;  // the stages past F, in the hyper stage
    logic [31:0] target;
    logic [21:0] mean;
    if (rules[2]) begin  // the timer's stage alone: F steps, one additive, then hyper
      hi = c.timer_stage;
      lo = c.timer_stage > fast_recovery ? c.timer_stage - 8'd1 : 8'd0;
    end
    past_f = lo - fast_recovery;
    if (hi <= fast_recovery) target = 32'(c.rt);
    else if (lo <= fast_recovery) target = 32'(c.rt) + 32'(rai);
    else target = 32'(c.rt) + (rules[3] ? 32'(rhai) : 32'(past_f) * 32'(rhai));
    n.rt = target > 32'(LINE) ? LINE : target[20:0];
    mean = (22'(n.rt) + 22'(c.rc) + 22'd1) >> 1;
    n.rc = mean > 22'(LINE) ? LINE : mean[20:0];
    return n;
  endfunction

  function automatic logic [7:0] bumped(logic [7:0] s);
    return s == 8'hff ? s : s + 8'd1;
  endfunction

  // A CNP arrived: the window's flag (per-window alpha), and the cut unless it is deferred.
  function automatic ctx_t incoming(ctx_t c, logic cut_now);
    ctx_t n = c;
    if (rules[4]) n.cnp_in_window = 1'b1;
    return cut_now ? cut(n) : n;
  endfunction

  function automatic ctx_t timeout(ctx_t c, logic [2:0] kind);
    ctx_t n = c;
    case (kind)
      3'd2: n = cut(c);
      3'd3: begin  // alpha timer
        if (rules[4] && c.cnp_in_window) begin
          n.alpha = raised(c.alpha);
          n.cnp_in_window = 1'b0;
        end else n.alpha = decayed(c.alpha);
      end
      3'd4: begin  // rate timer
        n.timer_stage = bumped(c.timer_stage);
        n.time_inc = 1'b1;
        n = increase(n);
      end
      3'd5: begin  // byte counter
        n.byte_stage = bumped(c.byte_stage);
        n = increase(n);
      end
      default: ;
    endcase
    return n;
  endfunction

  always_ff @(posedge clk) begin
    if (rst) begin
      valid <= 1'b0;
      ctx_out <= '0;
      rate <= '0;
    end else begin
      if (take) valid <= 1'b0;
      if (start) begin
        automatic ctx_t n = event_kind <= 3'd1 ? incoming(ctx_in, event_kind == 3'd0) : timeout(ctx_in, event_kind);
        ctx_out <= n;
        rate <= n.rc;
        valid <= 1'b1;
      end
    end
  end
endmodule

`default_nettype wire
