// Minimal protobuf wire-format encoder for the collector, and the profile's record framing. The
// preloaded library must not link libprotobuf (the application may have its own version), so
// records are encoded by hand, the way Go's runtime/pprof writes profiles. Field numbers come
// from proto/fields.h (checked against proto/omprof.proto by tests/unit/fields_check).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace omprof::wire {

class Encoder {
 public:
  void varint(uint64_t v) {
    while (v >= 0x80) {
      buf_.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    buf_.push_back(static_cast<char>(v));
  }
  void tag(uint32_t field, uint32_t wire_type) { varint((uint64_t(field) << 3) | wire_type); }
  // Scalars equal to zero are omitted, as proto3 does.
  void u64(uint32_t field, uint64_t v) {
    if (v == 0) return;
    tag(field, 0);
    varint(v);
  }
  void i64(uint32_t field, int64_t v) { u64(field, static_cast<uint64_t>(v)); }
  void i32(uint32_t field, int32_t v) {
    // proto3 int32: negative values are sign-extended to 64 bits.
    if (v == 0) return;
    tag(field, 0);
    varint(static_cast<uint64_t>(static_cast<int64_t>(v)));
  }
  void boolean(uint32_t field, bool v) { u64(field, v ? 1 : 0); }
  void dbl(uint32_t field, double v) {
    if (v == 0) return;
    tag(field, 1);  // 64-bit, little-endian
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 8; ++i) buf_.push_back(static_cast<char>(bits >> (8 * i)));
  }
  void str(uint32_t field, std::string_view s) {
    tag(field, 2);
    varint(s.size());
    buf_.append(s.data(), s.size());
  }
  void str_nonempty(uint32_t field, std::string_view s) {
    if (!s.empty()) str(field, s);
  }
  void message(uint32_t field, const Encoder& m) { str(field, m.buf_); }
  // Packed repeated varints.
  template <typename It>
  void packed(uint32_t field, It begin, It end) {
    if (begin == end) return;
    Encoder tmp;
    for (It it = begin; it != end; ++it) tmp.varint(static_cast<uint64_t>(*it));
    str(field, tmp.buf_);
  }
  const std::string& bytes() const { return buf_; }
  void clear() { buf_.clear(); }
  size_t size() const { return buf_.size(); }

 private:
  std::string buf_;
};

// A stream of length-delimited Record messages (docs/format.md): each record is the varint
// length of a Record, then the Record, whose one field `kind` wraps the message.
class RecordStream {
 public:
  void add(uint32_t kind, const Encoder& msg) {
    Encoder rec;
    rec.message(kind, msg);
    Encoder len;
    len.varint(rec.size());
    out_ += len.bytes();
    out_ += rec.bytes();
    ++count_;
  }
  const std::string& bytes() const { return out_; }
  uint64_t count() const { return count_; }

 private:
  std::string out_;
  uint64_t count_ = 0;
};

}  // namespace omprof::wire
