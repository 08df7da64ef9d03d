// Streams constant blobs into model.bin: appended in call order, identical byte sequences
// stored once, small blobs gathered in a large buffer, large ones written straight from their
// source. Large weights that are views of the mapped model file are copied file-to-file by the
// kernel; other pages of file-mapped weights are dropped once written, so the resident set
// stays well below the size of the model file. Large computed weights (DerivedBuffer, such as
// f16 copies of f32 weights) are produced in windows on up to two threads while the window
// before is written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/f16_weights.hpp"
#include "core/large_array_allocator.hpp"
#include "core/tensor.hpp"

namespace mo {

class BinWriter {
public:
    // Writes to an already opened file descriptor (not closed here); `path` is for messages.
    BinWriter(int fd, std::string path);
    ~BinWriter();
    BinWriter(const BinWriter&) = delete;
    BinWriter& operator=(const BinWriter&) = delete;

    struct Placement {
        uint64_t offset = 0;
        uint64_t size = 0;
    };
    // Appends the bytes (or finds an identical earlier blob) and returns where they are.
    Placement add(const Buffer& buffer, const std::byte* data, size_t size);
    // A tensor's bytes; those of a large DerivedBuffer are produced and written in bounded
    // windows, the next ones produced on other threads while the current one is written.
    Placement add(const Tensor& t);
    // f16 weights whose values may not all fit f16: checked while they are converted and
    // written, so their source is read once. nullopt when a value does not fit: then nothing
    // of them stays in the file, and the caller writes the f32 source instead.
    std::optional<Placement> add_f16(const F16Weights& weights);

    // The bytes all add() calls will bring at most; progress reports count against it.
    void set_expected_size(uint64_t bytes) { expected_ = bytes; }
    // Writes what is still buffered; call once at the end.
    void flush();
    uint64_t bytes_written() const { return end_; }
    size_t deduplicated_blobs() const { return deduplicated_; }
    // Zero bytes put before file-to-file copies to align them (see kCopyAlignment).
    uint64_t padding_bytes() const { return padding_; }

private:
    struct Blob {
        uint64_t offset;
        const std::byte* data;  // null: only in the file (compared with what was written)
        bool file_view;
    };
    const Blob* find_duplicate(uint64_t hash, const std::byte* data, size_t size, bool file_view) const;
    void remember(uint64_t hash, size_t size, Blob blob);
    // Whether the `size` bytes written at `offset` (buffered or in the file) equal `data`.
    bool written_bytes_equal(uint64_t offset, const std::byte* data, size_t size) const;
    // A blob under kDirectThreshold: into the buffer unless an identical one was written.
    // `keep`: `data` stays valid (a duplicate later is compared with it, not read back).
    Placement add_small(const std::byte* data, size_t size, bool file_view, bool keep);
    // Small f16 weights, converted and checked in one pass into scratch_.
    std::optional<Placement> add_small_f16(const F16Weights& weights);
    // Writes all bytes at the file's position: through splice_fully when it can, else write().
    void write_fully(const std::byte* data, size_t size);
    void write_plain(const std::byte* data, size_t size);
    // vmsplice hands the kernel this process's pages through a pipe and splice copies them into
    // the file in the kernel: several times less CPU per byte than write()'s copy from user
    // memory (docs/performance.md), which dominated writing f16 weights. Returns the bytes it
    // wrote; after a file or kernel that cannot splice it stops trying (the caller writes).
    size_t splice_fully(const std::byte* data, size_t size);
    // Splices `size` bytes of file `in` from offset `src` into the file through the pipe; the
    // same contract as splice_fully.
    size_t splice_from_file(int in, loff_t src, size_t size);
    bool open_pipe();
    // Moves `queued` bytes from the pipe into the file; false when the file refused splices
    // (then they were written plainly, and splicing is off from here on).
    bool drain_pipe(size_t queued);
    Placement add_derived(const DerivedBuffer& buffer, size_t size);
    // Writes `size` bytes made by produce(offset, out, n) in windows, produced ahead on other
    // threads; stops at the first window produce() refuses (returns false), leaving the file
    // as it was before. Returns whether every window was written.
    bool write_produced(size_t size, const std::function<bool(size_t, std::byte*, size_t)>& produce);
    // Copies bytes of a file-mapped weight file-to-file in the kernel (copy_file_range, as cp
    // does, or splice when the source offset is not page-aligned): they are never paged into
    // this process. Returns how many bytes it copied.
    size_t copy_from_mapped_file(const MappedFile& file, const std::byte* data, size_t size);

    int fd_;
    std::string path_;
    int pipe_[2] = {-1, -1};  // for splice_fully, opened on first use
    bool splice_ok_ = true;
    std::vector<std::byte> buffer_;
    uint64_t end_ = 0;  // logical size of the file (written + buffered)
    uint64_t expected_ = 0;
    // Every blob written, by (hash, size), for finding duplicates: open addressing with linear
    // probing, sized a power of two and at most half full (a million small constants were a
    // million hash nodes and as many vectors).
    struct Entry {
        uint64_t hash = 0;
        uint64_t size = 0;  // 0: an empty slot (empty blobs are not remembered)
        Blob blob{};
    };
    std::vector<Entry, LargeArrayAllocator<Entry>> table_;
    size_t table_used_ = 0;
    // Converted small f16 weights, kept only until they are in buffer_.
    std::vector<std::byte> scratch_;
    size_t deduplicated_ = 0;
    uint64_t padding_ = 0;
    // Large derived buffers already written: the same buffer is stored once.
    std::unordered_map<const DerivedBuffer*, uint64_t> derived_offsets_;
    // f16 weights found not to fit while they were written.
    std::unordered_set<const F16Weights*> not_f16_;
};

}  // namespace mo
