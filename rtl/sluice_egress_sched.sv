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

  // ---- Strict priority: the highest eligible strict queue.
  wire [NQ-1:0] strict_hit = eligible & strict_mask;
  logic [QW-1:0] strict_q;
  always_comb begin
    strict_q = '0;
    for (int i = 0; i < NQ; i++) if (strict_hit[i]) strict_q = QW'(i);
  end

  // ---- DWRR round.
  wire [NQ-1:0] dwrr = eligible & ~strict_mask;
  // The round's first queue: the current one if eligible (with its freshness), else the next
  // eligible after it (fresh). Later rounds start again at the same queue, fresh.
  logic [QW-1:0] after_current;
  always_comb begin
    after_current = current;
    for (int k = NQ - 1; k >= 1; k--) if (dwrr[QW'(current+QW'(k))]) after_current = QW'(current + QW'(k));
  end
  wire first_round = start;
  wire [QW-1:0] q0 = (!first_round || dwrr[current]) ? current : after_current;
  wire q0_fresh = !first_round || !dwrr[current] || fresh;

  logic [GW-1:0] grant[NQ];
  logic [DW-1:0] sum[NQ];  // deficit after this round's visit
  logic [NQ-1:0] fits;
  logic [NQ-1:0] granted;  // queues with a non-zero grant
  always_comb begin
    for (int i = 0; i < NQ; i++) begin
      grant[i] = GW'(weight[i]) * GW'(quantum);
      granted[i] = grant[i] != '0;
      sum[i] = deficit[i] + ((dwrr[i] && (QW'(i) != q0 || q0_fresh)) ? DW'(grant[i]) : '0);
      fits[i] = dwrr[i] && sum[i] >= DW'(head_bytes[i]);
    end
  end

  // The first queue that fits, in cyclic order from q0.
  logic [NQ-1:0] fits_rotated;
  always_comb
    for (int k = 0; k < NQ; k++) fits_rotated[k] = fits[QW'(q0+QW'(k))];
  logic [QW-1:0] win_pos;  // its position after q0
  always_comb begin
    win_pos = '0;
    for (int k = NQ - 1; k >= 0; k--) if (fits_rotated[k]) win_pos = QW'(k);
  end
  wire any_fits = |fits;
  wire [QW-1:0] winner = q0 + win_pos;
  // Every eligible queue's grant is 0 and none fits: no later round can serve one.
  wire stuck = !any_fits && !(|(dwrr & granted));

  always_ff @(posedge clk) begin
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
        served <= strict_q;
      end else if (start || busy) begin
        // An emptied DWRR queue forfeits its deficit (checked when a request reaches DWRR).
        if (start)
          for (int i = 0; i < NQ; i++)
            if (!strict_mask[i] && !eligible[i] && head_bytes[i] == '0) deficit[i] <= '0;
        if (dwrr == '0 || stuck) begin
          valid <= 1'b1;
          chosen <= 1'b0;
          busy <= 1'b0;
          if (dwrr != '0) begin  // a whole round went by
            current <= q0;
            fresh <= 1'b1;
          end
        end else if (any_fits) begin
          for (int i = 0; i < NQ; i++) begin
            if (dwrr[i] && QW'(QW'(i) - q0) < win_pos) deficit[i] <= sum[i];
`ifdef SLUICE_MUTANT_DEFICIT
            // The mutation test's broken variant: one wrong bit in the served queue's deficit.
            if (QW'(i) == winner) deficit[i] <= (sum[i] - DW'(head_bytes[i])) ^ DW'(1 << 9);
`else
            if (QW'(i) == winner) deficit[i] <= sum[i] - DW'(head_bytes[i]);
`endif
          end
          current <= winner;
          fresh <= 1'b0;
          valid <= 1'b1;
          chosen <= 1'b1;
          served <= winner;
          busy <= 1'b0;
        end else begin  // nobody fits: every eligible queue keeps its grant, next round
          for (int i = 0; i < NQ; i++) if (dwrr[i]) deficit[i] <= sum[i];
          current <= q0;
          fresh <= 1'b1;
          busy <= 1'b1;
        end
      end
    end
  end
endmodule

`default_nettype wire
