// Egress scheduler of a switch port: strict priority, then deficit weighted round robin (DWRR)
// over NQ class queues (8 on a CEE port, 16 VLs on an InfiniBand port). One decision per request.
//
// The decision is the C++ `strict-dwrr` policy's (models/switch/egress_scheduler.cpp), taken one
// DWRR round per clock: in a round every eligible DWRR queue is visited in cyclic order from the
// first one (the current queue, or the next eligible after it), a visited queue whose round has
// begun gets its grant (weight x quantum), and the first whose deficit then covers its head frame
// is served. A request whose first round serves a queue (the common case) answers after one
// clock; a head larger than deficit + grant takes one clock per further round.
//
// Handshake: the request's inputs are held from `start` until `valid`; `valid` (with `chosen` and
// `served`) is held until a clock with `take`. The answer: `chosen` = 0 declines (no queue
// eligible, or no eligible queue can ever be served: every grant is 0).
//
// Widths: a head frame is at most 65535 bytes, a weight 20 bits (the model's range 1..10^6; 0 is
// accepted and never served alone), the quantum 25 bits (64..2^24), a grant 45 bits and a deficit
// 48 bits: a deficit stays below one grant plus one head frame, so it never wraps.
`default_nettype none

module sluice_egress_sched #(
    parameter int NQ = 16,  // class queues (a power of two)
    parameter int QW = 4    // log2(NQ)
) (
    input wire clk,
    input wire rst,  // synchronous, active high: deficits 0, queue 0 current
    // The request: held from start until valid.
    input wire start,
    input wire [NQ-1:0] eligible,  // may send now: non-empty, not paused, credit, past the pipeline
    input wire [15:0] head_bytes[NQ],  // head frame of each queue, 0 if empty
    // Configuration: held between requests (written when a weight or the quantum changes).
    input wire [NQ-1:0] strict_mask,  // strict-priority queues; the others share by DWRR
    input wire [19:0] weight[NQ],
    input wire [24:0] quantum,  // bytes per unit of weight per round
    // The answer.
    input wire take,
    output logic valid,
    output logic chosen,
    output logic [QW-1:0] served
);
  localparam int DW = 48;  // deficit
  localparam int GW = 45;  // grant = weight x quantum

  // State: what the C++ scheduler keeps between calls.
  logic [DW-1:0] deficit[NQ];
  logic [QW-1:0] current;  // the queue the round robin is at
  logic fresh;  // current has not yet had its grant this round
  logic busy;  // a request past its first round

  // The round logic is evaluated inside the clocked process (functions called from always_ff),
  // so a cycle-based simulator evaluates it once per rising edge, not at every evaluation of the
  // inputs (docs/rtl.md, measured costs). Nothing combinational depends on the request ports.

  // The highest eligible strict queue.
  function automatic logic [QW-1:0] highest(logic [NQ-1:0] m);
    logic [QW-1:0] q = '0;
    for (int i = 0; i < NQ; i++) if (m[i]) q = QW'(i);
    return q;
  endfunction

  // A queue's grant per round: weight x quantum.
  function automatic logic [DW-1:0] grant(logic [QW-1:0] i);
    return DW'(GW'(weight[i]) * GW'(quantum));
  endfunction

  // The round to take: where it starts (q0, and whether q0 is granted in it), whether a queue fits
  // and which, or whether no round can ever serve one (every eligible grant 0).
  typedef struct packed {
    logic [QW-1:0] q0;
    logic q0_fresh;
    logic found;
    logic [QW-1:0] win_pos;  // the served queue's position after q0
    logic stuck;
  } round_t;

  // A visited queue's deficit after this round's grant.
  function automatic logic [DW-1:0] granted_deficit(logic [QW-1:0] i, logic [NQ-1:0] dwrr, logic [QW-1:0] q0,
                                                    logic q0_fresh);
    return deficit[i] + ((dwrr[i] && (i != q0 || q0_fresh)) ? grant(i) : '0);
  endfunction

  // The round's first queue: the current one if eligible (with its freshness), else the next
  // eligible after it (fresh). Later rounds start again at the same queue, fresh.
  function automatic round_t plan(logic [NQ-1:0] dwrr, logic first_round);
    round_t r;
    logic [QW-1:0] after_current = current;
    logic [NQ-1:0] fits;
    logic any_grant = 1'b0;
    for (int k = NQ - 1; k >= 1; k--) if (dwrr[QW'(current+QW'(k))]) after_current = QW'(current + QW'(k));
    r.q0 = (!first_round || dwrr[current]) ? current : after_current;
    r.q0_fresh = !first_round || !dwrr[current] || fresh;
    r.found = 1'b0;
    r.win_pos = '0;
    for (int i = 0; i < NQ; i++) begin
      fits[i] = dwrr[i] && granted_deficit(QW'(i), dwrr, r.q0, r.q0_fresh) >= DW'(head_bytes[i]);
      any_grant = any_grant | (dwrr[i] && grant(QW'(i)) != '0);
    end
    for (int k = 0; k < NQ; k++)
      if (!r.found && fits[QW'(r.q0+QW'(k))]) begin
        r.found = 1'b1;
        r.win_pos = QW'(k);
      end
    r.stuck = !r.found && !any_grant;
    return r;
  endfunction

  always_ff @(posedge clk) begin
    automatic logic [NQ-1:0] strict_hit = eligible & strict_mask;
    automatic logic [NQ-1:0] dwrr = eligible & ~strict_mask;
    automatic round_t r = plan(dwrr, start);
    automatic logic [QW-1:0] winner = r.q0 + r.win_pos;
    if (rst) begin
      for (int i = 0; i < NQ; i++) deficit[i] <= '0;
      current <= '0;
      fresh <= 1'b1;
      busy <= 1'b0;
      valid <= 1'b0;
      chosen <= 1'b0;
      served <= '0;
    end else begin
      if (take) valid <= 1'b0;
      if (start && strict_hit != '0) begin
        valid <= 1'b1;
        chosen <= 1'b1;
        served <= highest(strict_hit);
      end else if (start || busy) begin
        // An emptied DWRR queue forfeits its deficit (checked when a request reaches DWRR).
        if (start)
          for (int i = 0; i < NQ; i++)
            if (!strict_mask[i] && !eligible[i] && head_bytes[i] == '0) deficit[i] <= '0;
        if (dwrr == '0 || r.stuck) begin
          valid <= 1'b1;
          chosen <= 1'b0;
          busy <= 1'b0;
          if (dwrr != '0) begin  // a whole round went by
            current <= r.q0;
            fresh <= 1'b1;
          end
        end else if (r.found) begin
          for (int i = 0; i < NQ; i++) begin
            if (dwrr[i] && QW'(QW'(i) - r.q0) < r.win_pos) deficit[i] <= granted_deficit(QW'(i), dwrr, r.q0, r.q0_fresh);
`ifdef SLUICE_MUTANT_DEFICIT
            // The mutation test's broken variant: one wrong bit in the served queue's deficit.
            if (QW'(i) == winner)
              deficit[i] <= (granted_deficit(QW'(i), dwrr, r.q0, r.q0_fresh) - DW'(head_bytes[i])) ^ DW'(1 << 9);
`else
            if (QW'(i) == winner) deficit[i] <= granted_deficit(QW'(i), dwrr, r.q0, r.q0_fresh) - DW'(head_bytes[i]);
`endif
          end
          current <= winner;
          fresh <= 1'b0;
          valid <= 1'b1;
          chosen <= 1'b1;
          served <= winner;
          busy <= 1'b0;
        end else begin  // nobody fits: every eligible queue keeps its grant, next round
          for (int i = 0; i < NQ; i++) if (dwrr[i]) deficit[i] <= granted_deficit(QW'(i), dwrr, r.q0, r.q0_fresh);
          current <= r.q0;
          fresh <= 1'b1;
          busy <= 1'b1;
        end
      end
    end
  end
endmodule

`default_nettype wire
