#include "platforms/pcapng_writer.h"

#include <cerrno>
#include <cstring>

#include "models/core/units.h"

namespace sluice {
namespace {
constexpr uint32_t section_header = 0x0A0D0D0A, interface_description = 1, enhanced_packet = 6;
constexpr uint32_t byte_order_magic = 0x1A2B3C4D;
constexpr uint16_t opt_end = 0, if_name = 2, if_description = 3, if_tsresol = 9, epb_flags = 2;
uint32_t padded(uint32_t n) { return (n + 3) & ~3u; }
}  // namespace

pcapng_writer::pcapng_writer(const std::string& path, const std::string& key)
    : file_(std::fopen(path.c_str(), "wb")), path_(path), key_(key) {
  if (!file_) throw config_error(key + ": cannot write '" + path + "': " + std::strerror(errno));
  // Section header: byte order, version 1.0, section length unknown (-1), no options.
  const uint32_t body[] = {byte_order_magic, 1u | 0u << 16, 0xFFFFFFFFu, 0xFFFFFFFFu};
  const uint32_t length = 12 + sizeof body;
  put32(section_header);
  put32(length);
  put(body, sizeof body);
  put32(length);
}

pcapng_writer::~pcapng_writer() {
  if (file_) std::fclose(file_);
}

void pcapng_writer::put(const void* p, std::size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  block_.insert(block_.end(), b, b + n);
  if (block_.size() >= 1 << 16) {
    // The first failure's reason is kept for close(): a later flush may find nothing left to fail on.
    if (std::fwrite(block_.data(), 1, block_.size(), file_) != block_.size() && !error_) error_ = errno;
    block_.clear();
  }
}

void pcapng_writer::put_option(uint16_t code, const void* value, uint16_t length) {
  const uint16_t head[] = {code, length};
  put(head, sizeof head);
  put(value, length);
  static const uint8_t zeros[4] = {};
  put(zeros, padded(length) - length);
}

uint32_t pcapng_writer::add_interface(uint16_t link_type, const std::string& name, const std::string& description) {
  const uint32_t options = 4 + padded(static_cast<uint32_t>(name.size())) + 4 +
                           padded(static_cast<uint32_t>(description.size())) + 4 + 4 + 4;
  const uint32_t length = 12 + 8 + options;
  put32(interface_description);
  put32(length);
  const uint16_t type_and_reserved[] = {link_type, 0};
  put(type_and_reserved, sizeof type_and_reserved);
  put32(0);  // snap length: no limit
  put_option(if_name, name.data(), static_cast<uint16_t>(name.size()));
  put_option(if_description, description.data(), static_cast<uint16_t>(description.size()));
  const uint8_t nanoseconds = 9;  // 10^-9 s per timestamp unit
  put_option(if_tsresol, &nanoseconds, 1);
  put_option(opt_end, nullptr, 0);
  put32(length);
  return interfaces_++;
}

void pcapng_writer::write_packet(uint32_t interface, uint64_t time_ns, const uint8_t* data, uint32_t captured,
                                 uint32_t original, capture_direction direction) {
  const uint32_t length = 12 + 20 + padded(captured) + 8 + 4;
  put32(enhanced_packet);
  put32(length);
  const uint32_t fields[] = {interface, static_cast<uint32_t>(time_ns >> 32), static_cast<uint32_t>(time_ns), captured,
                             original};
  put(fields, sizeof fields);
  put(data, captured);
  static const uint8_t zeros[4] = {};
  put(zeros, padded(captured) - captured);
  const auto flags = static_cast<uint32_t>(direction);
  put_option(epb_flags, &flags, 4);
  put_option(opt_end, nullptr, 0);
  put32(length);
}

void pcapng_writer::close() {
  if (!file_) return;
  if (!block_.empty() && std::fwrite(block_.data(), 1, block_.size(), file_) != block_.size() && !error_)
    error_ = errno;
  block_.clear();
  if ((std::fflush(file_) != 0 || std::ferror(file_)) && !error_) error_ = errno ? errno : EIO;
  if (std::fclose(file_) != 0 && !error_) error_ = errno;
  file_ = nullptr;
  if (error_) throw config_error(key_ + ": cannot write '" + path_ + "': " + std::strerror(error_));
}

void put_erf_header(uint8_t* out, uint64_t time_ns, uint8_t type, uint16_t captured, uint16_t wire) {
  // Timestamp: little-endian 32.32 fixed-point seconds; the rest big-endian.
  const uint64_t seconds = time_ns / 1000000000ull, nanos = time_ns % 1000000000ull;
  const uint64_t ts = seconds << 32 | ((nanos << 32) / 1000000000ull);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(ts >> (8 * i));
  out[8] = type;
  out[9] = 0;  // flags: capture interface 0, no errors
  const uint16_t rlen = static_cast<uint16_t>(16 + captured);
  out[10] = static_cast<uint8_t>(rlen >> 8);
  out[11] = static_cast<uint8_t>(rlen);
  out[12] = out[13] = 0;  // loss counter
  out[14] = static_cast<uint8_t>(wire >> 8);
  out[15] = static_cast<uint8_t>(wire);
}

}  // namespace sluice
