#include "emit/bin_writer.hpp"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <future>
#include <utility>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/mapped_file.hpp"
#include "core/parallel.hpp"
#include "core/progress.hpp"

namespace mo {

namespace {

// Small blobs are gathered here; a blob this large or larger is written directly.
constexpr size_t kBufferSize = size_t{8} << 20;
constexpr size_t kDirectThreshold = size_t{1} << 20;
// Large blobs are hashed, written and released in pieces this big, cut at address multiples
// of it so every page is released by exactly one piece.
constexpr uintptr_t kChunk = uintptr_t{1} << 20;
constexpr size_t kProgressStep = size_t{64} << 20;
// The pipe splices go through.
constexpr size_t kPipeSize = size_t{1} << 20;
// A file-to-file copy from a page-aligned source offset starts at a multiple of this in the BIN.
// The kernel splices 64 KiB at a time; a destination offset off this alignment splits every
// piece over two page-cache folios, and the copy of a page-aligned source took 40% more system
// time (0.75 s against 0.53 s for 2.2 GB, Linux 6.18 ext4; a 64 KiB or 2 MiB offset was as fast
// as offset 0). An unaligned source gains nothing from it, so it gets no padding.
constexpr uint64_t kCopyAlignment = uint64_t{64} << 10;
// Pieces of a derived buffer produced and written at a time.
constexpr size_t kWindow = size_t{8} << 20;

// A 64-bit streaming hash over 32-byte blocks in four independent lanes (so the multiplies
// overlap and hashing keeps up with memory bandwidth); good enough that equal (hash, size)
// almost always means equal bytes, and memcmp decides anyway.
class StreamHash {
public:
    void update(const std::byte* p, size_t n) {
        total_ += n;
        if (tail_n_ > 0) {
            size_t take = std::min(kBlock - tail_n_, n);
            std::memcpy(tail_ + tail_n_, p, take);
            tail_n_ += take, p += take, n -= take;
            if (tail_n_ < kBlock) return;
            block(tail_);
            tail_n_ = 0;
        }
        for (; n >= kBlock; p += kBlock, n -= kBlock) block(p);
        if (n > 0) std::memcpy(tail_, p, n), tail_n_ = n;
    }
    uint64_t finish() {
        if (tail_n_ > 0) {
            std::memset(tail_ + tail_n_, 0, kBlock - tail_n_);
            block(tail_);
        }
        uint64_t h = total_;
        for (uint64_t lane : lanes_) h = mix64(h ^ lane);
        return mix64(h);
    }

private:
    static constexpr size_t kBlock = 32;
    static uint64_t load(const void* p) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        return w;
    }
    static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
    void block(const void* p) {
        const auto* b = static_cast<const std::byte*>(p);
        for (int i = 0; i < 4; ++i)
            lanes_[i] = rotl(lanes_[i] ^ (load(b + 8 * i) * 0x9E3779B97F4A7C15ull), 29) * 0xC2B2AE3D27D4EB4Full;
    }
    uint64_t lanes_[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull, 0x082EFA98EC4E6C89ull};
    uint64_t total_ = 0;
    std::byte tail_[kBlock];
    size_t tail_n_ = 0;
};

// Calls fn(ptr, len) for consecutive pieces of [data, data+size) cut at kChunk address multiples.
template <typename Fn>
void for_each_chunk(const std::byte* data, size_t size, Fn&& fn) {
    const std::byte* end = data + size;
    for (const std::byte* cur = data; cur < end;) {
        auto boundary = (reinterpret_cast<uintptr_t>(cur) / kChunk + 1) * kChunk;
        size_t len = std::min<size_t>(boundary - reinterpret_cast<uintptr_t>(cur), end - cur);
        fn(cur, len);
        cur += len;
    }
}

void release_if_file_view(bool file_view, const std::byte* data, size_t size) {
    if (file_view) MappedFile::release_pages(data, size);
}

// Large blobs are keyed by a hash of their first and last kSample bytes (and their size):
// equal blobs always collide, and a full memcmp settles the rare false candidates. So a large
// weight's bytes need not be read at all when it can be copied file-to-file.
constexpr size_t kSample = size_t{64} << 10;

uint64_t sampled_hash(const std::byte* data, size_t size, bool file_view) {
    StreamHash hasher;
    size_t head = std::min(size, kSample), tail = std::min(size - head, kSample);
    hasher.update(data, head);
    hasher.update(data + size - tail, tail);
    release_if_file_view(file_view, data, head);
    release_if_file_view(file_view, data + size - tail, tail);
    return hasher.finish();
}

}  // namespace

BinWriter::BinWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) { buffer_.reserve(kBufferSize); }

BinWriter::~BinWriter() {
    for (int end : pipe_)
        if (end >= 0) ::close(end);
}

namespace {

// Splicing does not work here: another kind of file, or a kernel without it.
bool unsupported_here(int error) { return error == EINVAL || error == ENOSYS || error == EOPNOTSUPP || error == EBADF; }

[[noreturn]] void write_failed(int error, const std::string& path) {
    throw Error(std::string("cannot write the weights file: ") + std::strerror(error), path,
                "check free disk space and write permission of the output directory");
}

}  // namespace

size_t BinWriter::copy_from_mapped_file(const MappedFile& file, const std::byte* data, size_t size) {
    loff_t src = static_cast<loff_t>(data - file.data());
    // From a source offset that is not page-aligned copy_file_range copies through a 64 KiB
    // pipe of the kernel's at 2.2 GB/s here; splicing through our 1 MiB pipe ran at cp's speed
    // (docs/performance.md). What it leaves is copied below.
    size_t copied = src % 4096 != 0 ? splice_from_file(file.fd(), src, size) : 0;
    src += static_cast<loff_t>(copied);
    while (copied < size) {
        // In pieces, so that the progress line moves during a multi-gigabyte weight.
        ssize_t n = ::copy_file_range(file.fd(), &src, fd_, nullptr, std::min(size - copied, kProgressStep), 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // unsupported here (EXDEV, EINVAL, ...): the caller writes the rest
        copied += static_cast<size_t>(n);
        Progress::bytes(end_ + copied, expected_);
    }
    return copied;
}


bool BinWriter::open_pipe() {
    if (!splice_ok_) return false;
    if (pipe_[0] >= 0) return true;
    if (::pipe2(pipe_, O_CLOEXEC) != 0) return splice_ok_ = false;
    // Fewer round trips; the default (64 KiB) works too, at two thirds of the speed for a copy
    // from a file (copy_file_range's own pipe is that size).
    ::fcntl(pipe_[1], F_SETPIPE_SZ, static_cast<int>(kPipeSize));
    return true;
}

bool BinWriter::drain_pipe(size_t queued) {
    for (size_t moved = 0; moved < queued;) {
        const ssize_t n = ::splice(pipe_[0], nullptr, fd_, nullptr, queued - moved, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n > 0) {
            moved += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && !unsupported_here(errno)) write_failed(errno, path_);
        // This file cannot take splices: what is left in the pipe is still ours, written plainly.
        splice_ok_ = false;
        std::vector<std::byte> rest(queued - moved);
        for (size_t got = 0; got < rest.size();) {
            const ssize_t r = ::read(pipe_[0], rest.data() + got, rest.size() - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) write_failed(r < 0 ? errno : EIO, path_);
            got += static_cast<size_t>(r);
        }
        write_plain(rest.data(), rest.size());
        return false;
    }
    return true;
}

size_t BinWriter::splice_fully(const std::byte* data, size_t size) {
    if (!open_pipe()) return 0;
    size_t done = 0;
    while (done < size) {
        iovec piece{const_cast<std::byte*>(data + done), size - done};
        const ssize_t queued = ::vmsplice(pipe_[1], &piece, 1, 0);
        if (queued < 0 && errno == EINTR) continue;
        if (queued <= 0) {
            splice_ok_ = false;
            return done;
        }
        // The pipe holds references to our pages: move all of them into the file before
        // returning, so the caller may reuse the memory.
        done += static_cast<size_t>(queued);
        if (!drain_pipe(static_cast<size_t>(queued))) return done;
    }
    return done;
}

size_t BinWriter::splice_from_file(int in, loff_t src, size_t size) {
    if (!open_pipe()) return 0;
    size_t done = 0;
    while (done < size) {
        const ssize_t queued = ::splice(in, &src, pipe_[1], nullptr, std::min(size - done, kPipeSize), 0);
        if (queued < 0 && errno == EINTR) continue;
        if (queued <= 0) return done;  // the pipe is empty: the caller copies the rest another way
        done += static_cast<size_t>(queued);
        const bool spliced = drain_pipe(static_cast<size_t>(queued));
        if (done % kProgressStep < static_cast<size_t>(queued) || done == size) Progress::bytes(end_ + done, expected_);
        if (!spliced) return done;
    }
    return done;
}

void BinWriter::write_fully(const std::byte* data, size_t size) {
    const size_t spliced = splice_fully(data, size);
    write_plain(data + spliced, size - spliced);
}

void BinWriter::write_plain(const std::byte* data, size_t size) {
    while (size > 0) {
        ssize_t n = ::write(fd_, data, std::min<size_t>(size, size_t{1} << 30));
        if (n < 0) {
            if (errno == EINTR) continue;
            write_failed(errno, path_);
        }
        data += n, size -= static_cast<size_t>(n);
    }
}

void BinWriter::flush() {
    write_fully(buffer_.data(), buffer_.size());
    buffer_.clear();
}

namespace {
size_t home_slot(uint64_t hash, uint64_t size, size_t mask) {
    return static_cast<size_t>((hash ^ (size * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull >> 17) & mask;
}
}  // namespace

const BinWriter::Blob* BinWriter::find_duplicate(uint64_t hash, const std::byte* data, size_t size,
                                                 bool file_view) const {
    if (table_.empty()) return nullptr;
    const size_t mask = table_.size() - 1;
    for (size_t i = home_slot(hash, size, mask); table_[i].size != 0; i = (i + 1) & mask) {
        const Entry& e = table_[i];
        if (e.hash != hash || e.size != size) continue;
        const Blob& b = e.blob;
        if (b.data == data) return &b;
        if (!b.data) {
            if (written_bytes_equal(b.offset, data, size)) return &b;
            continue;
        }
        bool equal = true;
        // Piecewise so that comparing two mapped weights does not page both in at once.
        for_each_chunk(data, size, [&](const std::byte* p, size_t len) {
            if (!equal) return;
            const std::byte* q = b.data + (p - data);
            equal = std::memcmp(p, q, len) == 0;
            release_if_file_view(file_view, p, len);
            release_if_file_view(b.file_view, q, len);
        });
        if (equal) return &b;
    }
    return nullptr;
}

void BinWriter::remember(uint64_t hash, size_t size, Blob blob) {
    if (size == 0) return;
    if (2 * (table_used_ + 1) > table_.size()) {
        auto old = std::exchange(table_, decltype(table_)(std::max<size_t>(1024, 2 * table_.size())));
        table_used_ = 0;
        for (const Entry& e : old)
            if (e.size != 0) remember(e.hash, e.size, e.blob);
    }
    const size_t mask = table_.size() - 1;
    size_t i = home_slot(hash, size, mask);
    while (table_[i].size != 0) i = (i + 1) & mask;
    table_[i] = Entry{hash, size, blob};
    ++table_used_;
}

bool BinWriter::written_bytes_equal(uint64_t offset, const std::byte* data, size_t size) const {
    const uint64_t buffered_from = end_ - buffer_.size();  // a small blob is buffered whole or not at all
    if (offset >= buffered_from) return std::memcmp(buffer_.data() + (offset - buffered_from), data, size) == 0;
    std::vector<std::byte> written(size);
    for (size_t got = 0; got < size;) {
        const ssize_t n = ::pread(fd_, written.data() + got, size - got, static_cast<off_t>(offset + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;  // a file that cannot be read back: stored again, not merged
        got += static_cast<size_t>(n);
    }
    return std::memcmp(written.data(), data, size) == 0;
}

BinWriter::Placement BinWriter::add(const Tensor& t) {
    const size_t size = t.byte_size();
    if (size == 0) return {end_, 0};
    const auto* derived = dynamic_cast<const DerivedBuffer*>(t.buffer().get());
    if (derived && !derived->materialized() && size >= kDirectThreshold) return add_derived(*derived, size);
    return add(*t.buffer(), t.bytes(), size);  // a small derived buffer is computed and kept
}

BinWriter::Placement BinWriter::add_derived(const DerivedBuffer& buffer, size_t size) {
    if (auto it = derived_offsets_.find(&buffer); it != derived_offsets_.end()) {
        ++deduplicated_;
        return {it->second, size};
    }
    flush();
    const uint64_t offset = end_;
    write_produced(size, [&buffer](size_t from, std::byte* out, size_t n) {
        buffer.produce(from, out, n);
        return true;
    });
    derived_offsets_.emplace(&buffer, offset);
    return {offset, size};
}

std::optional<BinWriter::Placement> BinWriter::add_f16(const F16Weights& weights) {
    const size_t size = weights.size();
    if (not_f16_.count(&weights)) return std::nullopt;
    if (size < kDirectThreshold) return add_small_f16(weights);
    if (derived_offsets_.count(&weights) || weights.known_to_fit()) {
        if (!weights.fits()) return std::nullopt;
        return add_derived(weights, size);
    }
    flush();
    const uint64_t offset = end_;
    if (!write_produced(size, [&weights](size_t from, std::byte* out, size_t n) {
            return weights.produce_checked(from, out, n);
        })) {
        not_f16_.insert(&weights);
        return std::nullopt;
    }
    weights.record_check(true);
    derived_offsets_.emplace(&weights, offset);
    return Placement{offset, size};
}

bool BinWriter::write_produced(size_t size, const std::function<bool(size_t, std::byte*, size_t)>& produce) {
    const uint64_t start = end_;
    const size_t windows = (size + kWindow - 1) / kWindow;
    // Producers run ahead of the writer: one per CPU but the writer's, at least one and at most two.
    // On two CPUs that is one: a second producer took more CPU time and no less wall time, the
    // writer being the slower side (docs/performance.md).
    const size_t ahead = std::clamp<size_t>(usable_cpus(), 2, 3) - 1;
    std::vector<std::vector<std::byte>> buffers(std::min(ahead + 1, windows));
    for (auto& b : buffers) b.resize(std::min(size, kWindow));
    auto length = [&](size_t w) { return std::min(kWindow, size - w * kWindow); };
    // Destroyed before the buffers: a future of std::async waits for its producer.
    std::deque<std::future<bool>> pending;
    size_t launched = 0;
    auto launch = [&] {
        std::byte* out = buffers[launched % buffers.size()].data();
        pending.push_back(std::async(std::launch::async, produce, launched * kWindow, out, length(launched)));
        ++launched;
    };
    while (launched < windows && launched < ahead) launch();
    for (size_t w = 0; w < windows; ++w) {
        const bool ok = pending.front().get();
        pending.pop_front();
        if (!ok) {
            pending.clear();  // waits for the producers still running
            if (::ftruncate(fd_, static_cast<off_t>(start)) != 0 || ::lseek(fd_, static_cast<off_t>(start), SEEK_SET) < 0)
                throw Error(std::string("cannot rewind the weights file: ") + std::strerror(errno), path_,
                            "check the output directory's file system");
            end_ = start;
            return false;
        }
        // The buffer of window w - 1 is free again: produce window w + ahead into it.
        if (launched < windows) launch();
        write_fully(buffers[w % buffers.size()].data(), length(w));
        end_ += length(w);
        Progress::bytes(end_, expected_);
    }
    return true;
}

std::optional<BinWriter::Placement> BinWriter::add_small_f16(const F16Weights& weights) {
    const size_t size = weights.size();
    // Converted already (a reader needed the values, so they fit): stored as any small blob.
    if (weights.materialized()) return add_small(weights.data(), size, false, true);
    scratch_.resize(size);
    if (!weights.produce_checked(0, scratch_.data(), size)) {
        not_f16_.insert(&weights);
        return std::nullopt;
    }
    weights.record_check(true);
    return add_small(scratch_.data(), size, false, false);
}

BinWriter::Placement BinWriter::add_small(const std::byte* data, size_t size, bool file_view, bool keep) {
    if (size == 0) return {end_, 0};
    StreamHash hasher;
    hasher.update(data, size);
    uint64_t hash = hasher.finish();
    if (const Blob* dup = find_duplicate(hash, data, size, file_view)) {
        ++deduplicated_;
        return {dup->offset, size};
    }
    if (buffer_.size() + size > kBufferSize) flush();
    buffer_.insert(buffer_.end(), data, data + size);
    release_if_file_view(file_view, data, size);
    Placement placed{end_, size};
    remember(hash, size, Blob{end_, keep ? data : nullptr, file_view});
    end_ += size;
    return placed;
}

BinWriter::Placement BinWriter::add(const Buffer& buffer, const std::byte* data, size_t size) {
    if (size == 0) return {end_, 0};
    const bool file_view = buffer.is_file_view();
    if (size < kDirectThreshold) return add_small(data, size, file_view, true);

    flush();
    const uint64_t hash = sampled_hash(data, size, file_view);
    if (const Blob* dup = find_duplicate(hash, data, size, file_view)) {
        ++deduplicated_;
        return {dup->offset, size};
    }
    if (file_view && (data - buffer.source_file()->data()) % 4096 == 0 && end_ % kCopyAlignment != 0) {
        static const std::byte zeros[kCopyAlignment] = {};
        const auto pad = static_cast<size_t>(kCopyAlignment - end_ % kCopyAlignment);
        write_fully(zeros, pad);
        end_ += pad;
        padding_ += pad;
    }
    const uint64_t offset = end_;
    size_t done = file_view ? copy_from_mapped_file(*buffer.source_file(), data, size) : 0;
    for_each_chunk(data + done, size - done, [&](const std::byte* p, size_t len) {
        write_fully(p, len);
        release_if_file_view(file_view, p, len);
    });
    end_ += size;
    Progress::bytes(end_, expected_);
    remember(hash, size, Blob{offset, data, file_view});
    return {offset, size};
}

}  // namespace mo
