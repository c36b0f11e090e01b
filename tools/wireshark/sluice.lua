-- Wireshark dissectors for what Wireshark 4.0 does not decode in Sluice's captures
-- (docs/observability.md, "Packet captures"):
--   * the IEEE 802.1Qau congestion notification message (EtherType 0x22E7): quantized feedback,
--     CPID, cnmQOffset, cnmQDelta and the encapsulated frame's priority, DA and MSDU length, with
--     the scheme its version names (0 QCN, 1 ECM/BCN, 2 ASM);
--   * InfiniBand flow-control (credit) packets in ERF InfiniBand link records (type 25): the
--     native dissector reads them as if an LRH began there and fails on some FCTBS values;
--   * the BTH's FECN and BECN bits (Wireshark 4.0 shows byte 4 of the BTH as reserved), TCD's UE
--     code point (the next bit) and the field Sluice puts in RoCEv2 CNPs (PCN's receiving rate in
--     the first four reserved bytes), added after the native BTH dissection (RoCEv2 and ERF
--     InfiniBand alike).
-- Use: tshark -X lua_script:tools/wireshark/sluice.lua -r capture.pcapng
-- (or copy the file into Wireshark's personal plugins folder).

local cnm = Proto("sluice_cnm", "IEEE 802.1Qau Congestion Notification Message")
local schemes = {[0] = "QCN", [1] = "ECM/BCN", [2] = "ASM"}
local f = cnm.fields
f.version = ProtoField.uint8("sluice_cnm.version", "Version", base.DEC, schemes, 0xF0)
f.qfb = ProtoField.uint16("sluice_cnm.qfb", "Quantized feedback", base.DEC, nil, 0x003F)
f.cpid = ProtoField.uint64("sluice_cnm.cpid", "Congestion point identifier", base.HEX)
f.qoffset = ProtoField.int16("sluice_cnm.qoffset", "cnmQOffset", base.DEC)
f.qdelta = ProtoField.int16("sluice_cnm.qdelta", "cnmQDelta", base.DEC)
f.priority = ProtoField.uint16("sluice_cnm.encap_priority", "Encapsulated priority", base.DEC)
f.da = ProtoField.ether("sluice_cnm.encap_da", "Encapsulated destination address")
f.msdu_length = ProtoField.uint16("sluice_cnm.msdu_length", "Encapsulated MSDU length", base.DEC)
f.msdu = ProtoField.bytes("sluice_cnm.msdu", "Encapsulated MSDU")

function cnm.dissector(buf, pinfo, tree)
  if buf:len() < 24 then return 0 end
  pinfo.cols.protocol = "CNM"
  local t = tree:add(cnm, buf(0, 24))
  local version = buf(0, 1):bitfield(0, 4)
  t:add(f.version, buf(0, 1))
  t:add(f.qfb, buf(0, 2))
  t:add(f.cpid, buf(2, 8))
  t:add(f.qoffset, buf(10, 2))
  t:add(f.qdelta, buf(12, 2))
  t:add(f.priority, buf(14, 2))
  t:add(f.da, buf(16, 6))
  t:add(f.msdu_length, buf(22, 2))
  local carried = math.min(buf(22, 2):uint(), 64, buf:len() - 24)
  if carried > 0 then t:add(f.msdu, buf(24, carried)) end
  pinfo.cols.info = string.format("%s CNM qFb=%d qOffset=%d qDelta=%d CPID=0x%s", schemes[version] or "CNM",
                                  buf(0, 2):uint() % 64, buf(10, 2):int(), buf(12, 2):int(),
                                  buf(2, 8):uint64():tohex())
  return buf:len()
end
DissectorTable.get("ethertype"):add(0x22E7, cnm)

-- InfiniBand link-level flow-control packet (6 bytes): Op(4) FCTBS(12) | VL(4) FCCL(12) | LPCRC(16).
local link = Proto("sluice_ib_link", "InfiniBand Flow Control Packet")
local ops = {[0] = "Normal", [1] = "Init"}
link.fields.op = ProtoField.uint16("sluice_ib_link.op", "Op", base.DEC, ops, 0xF000)
link.fields.fctbs = ProtoField.uint16("sluice_ib_link.fctbs", "FCTBS", base.DEC, nil, 0x0FFF)
link.fields.vl = ProtoField.uint16("sluice_ib_link.vl", "VL", base.DEC, nil, 0xF000)
link.fields.fccl = ProtoField.uint16("sluice_ib_link.fccl", "FCCL", base.DEC, nil, 0x0FFF)
link.fields.lpcrc = ProtoField.uint16("sluice_ib_link.lpcrc", "LPCRC", base.HEX)

function link.dissector(buf, pinfo, tree)
  if buf:len() < 6 then return 0 end
  pinfo.cols.protocol = "IB Link"
  local t = tree:add(link, buf(0, 6))
  t:add(link.fields.op, buf(0, 2))
  t:add(link.fields.fctbs, buf(0, 2))
  t:add(link.fields.vl, buf(2, 2))
  t:add(link.fields.fccl, buf(2, 2))
  t:add(link.fields.lpcrc, buf(4, 2))
  pinfo.cols.info = string.format("Flow Control %s VL %d FCTBS %d FCCL %d", ops[buf(0, 1):bitfield(0, 4)] or "?",
                                  buf(2, 1):bitfield(0, 4), buf(0, 2):uint() % 4096, buf(2, 2):uint() % 4096)
  return 6
end
DissectorTable.get("erf.types.type"):add(25, link)

-- Fields added after the native RoCEv2 BTH dissection.
local extra = Proto("sluice", "Sluice model fields")
extra.fields.cnp_rate = ProtoField.uint32("sluice.cnp_rate_mbps", "CNP receiving rate (PCN), Mb/s", base.DEC)
extra.fields.fecn = ProtoField.bool("sluice.fecn", "FECN", 8, nil, 0x80)
extra.fields.becn = ProtoField.bool("sluice.becn", "BECN", 8, nil, 0x40)
extra.fields.tcd_ue = ProtoField.bool("sluice.tcd_ue", "TCD undetermined (UE)", 8, nil, 0x20)
local bth_field = Field.new("infiniband.bth")
local opcode_field = Field.new("infiniband.bth.opcode")

function extra.dissector(buf, pinfo, tree)
  local bth = bth_field()
  if not bth then return end
  local range = bth.range
  if range:len() < 5 then return end
  -- BTH byte 4: FECN (0x80), BECN (0x40), then TCD's UE (0x20), a reserved bit.
  local t = tree:add(extra, range)
  t:add(extra.fields.fecn, range(4, 1))
  t:add(extra.fields.becn, range(4, 1))
  t:add(extra.fields.tcd_ue, range(4, 1))
  local opcode = opcode_field()
  if opcode and opcode.value == 0x81 then  -- RoCEv2 CNP: 16 reserved bytes follow the BTH
    local after = bth.offset + bth.len
    local tvb = buf
    if tvb:len() >= after + 4 then
      t:add(extra.fields.cnp_rate, tvb(after, 4))
    end
  end
end
register_postdissector(extra)
