#include "json_lines.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace stackreq_perf {

namespace {

// Appends printf-style into a fixed buffer; remembers overflow instead of truncating lines.
class Line {
public:
    Line(char* buffer, size_t capacity) : buffer_(buffer), capacity_(capacity) {}

    void add(const char* format, ...) __attribute__((format(printf, 2, 3))) {
        if (overflow_) return;
        va_list args;
        va_start(args, format);
        int written = vsnprintf(buffer_ + length_, capacity_ - length_, format, args);
        va_end(args);
        if (written < 0 || size_t(written) >= capacity_ - length_) {
            overflow_ = true;
        } else {
            length_ += size_t(written);
        }
    }

    // The sample line's pieces without vsnprintf, which cost the writer thread most of its
    // microseconds a sample.
    void text(const char* value) {
        for (; !overflow_ && *value != '\0'; value++) put(*value);
    }

    void number(uint64_t value) {
        char digits[20];
        int count = 0;
        do {
            digits[count++] = static_cast<char>('0' + value % 10);
            value /= 10;
        } while (value != 0);
        while (count > 0) put(digits[--count]);
    }

    void signed_number(int64_t value) {
        if (value < 0) put('-');
        number(value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value));
    }

    // Returns the length, or 0 when something did not fit.
    size_t finish(bool newline = true) {
        if (newline) add("\n");
        return overflow_ ? 0 : length_;
    }

private:
    // Keeps room for the terminating NUL, as vsnprintf does.
    void put(char c) {
        if (overflow_ || length_ + 1 >= capacity_) {
            overflow_ = true;
            return;
        }
        buffer_[length_++] = c;
        buffer_[length_] = '\0';
    }

    char* buffer_;
    size_t capacity_;
    size_t length_ = 0;
    bool overflow_ = false;
};

// Event names come from the event table (letters, digits, '-') and engine names are
// constants, so no JSON escaping is needed.

}  // namespace

void ErrorTally::add(int32_t code) {
    for (int i = 0; i < used_; i++) {
        if (codes_[i] == code) {
            counts_[i]++;
            return;
        }
    }
    if (used_ == kMaxCodes) {
        other_++;
        return;
    }
    int at = used_++;
    while (at > 0 && codes_[at - 1] > code) {  // kept sorted for the end line
        codes_[at] = codes_[at - 1];
        counts_[at] = counts_[at - 1];
        at--;
    }
    codes_[at] = code;
    counts_[at] = 1;
}

uint64_t ErrorTally::count(int32_t code) const {
    for (int i = 0; i < used_; i++) {
        if (codes_[i] == code) return counts_[i];
    }
    return 0;
}

size_t ErrorTally::format(char* buffer, size_t capacity) const {
    Line line(buffer, capacity);
    line.add("{");
    for (int i = 0; i < used_; i++) line.add("%s\"%d\":%" PRIu64, i == 0 ? "" : ",", codes_[i], counts_[i]);
    if (other_ != 0) line.add("%s\"other\":%" PRIu64, used_ == 0 ? "" : ",", other_);
    line.add("}");
    return line.finish(false);  // embedded in the end line
}

size_t format_start_line(const StreamInfo& info, char* buffer, size_t capacity) {
    Line line(buffer, capacity);
    line.add("{\"type\":\"start\",\"engine\":\"%s\",\"leader\":\"%s\",\"events\":[", info.engine,
             info.count > 0 ? info.names[0] : "");
    for (int i = 0; i < info.count; i++) line.add("%s\"%s\"", i == 0 ? "" : ",", info.names[i]);
    line.add("],\"period\":%" PRIu64 ",\"periodUnit\":\"%s\",\"pid\":%d,\"clock\":\"CLOCK_MONOTONIC\"}", info.period,
             info.period_is_time ? "ns" : "count", info.pid);
    return line.finish();
}

size_t format_sample_line(const StreamInfo& info, const Sample& sample, char* buffer, size_t capacity) {
    Line line(buffer, capacity);
    line.text("{\"type\":\"sample\",\"userData\":");
    line.signed_number(sample.user_data);
    line.text(",\"tid\":");
    line.signed_number(sample.tid);
    line.text(",\"time\":");
    line.signed_number(sample.time_ns);
    line.text(",\"cpu\":");
    line.signed_number(sample.cpu);
    line.text(",\"event\":\"");
    line.text(info.count > 0 ? info.names[0] : "");
    line.text("\",\"period\":");
    line.number(info.period);
    line.text(",\"deltas\":{");
    for (int i = 0; i < info.count; i++) {
        line.text(i == 0 ? "\"" : ",\"");
        line.text(info.names[i]);
        line.text("\":");
        line.number(sample.deltas[i]);
    }
    line.text("},\"error\":");
    line.signed_number(sample.error);
    line.text("}\n");
    return line.finish(false);
}

size_t format_end_line(uint64_t samples, uint64_t lost, const ErrorTally& errors, char* buffer, size_t capacity) {
    char tally[2048];
    if (errors.format(tally, sizeof(tally)) == 0) return 0;
    Line line(buffer, capacity);
    line.add("{\"type\":\"end\",\"samples\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"errors\":%s}", samples, lost, tally);
    return line.finish();
}

}  // namespace stackreq_perf
