#include "emit/bin_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>

#include "core/float16.hpp"
#include "core/mapped_file.hpp"
#include "emit/ir_test_util.hpp"

namespace mo {
namespace {

std::vector<std::byte> pattern(size_t n, uint32_t seed) {
    std::vector<std::byte> v(n);
    uint32_t x = seed;
    for (auto& b : v) {
        x = x * 1664525u + 1013904223u;  // LCG: deterministic, not all equal
        b = static_cast<std::byte>(x >> 24);
    }
    return v;
}

struct Sink {
    test::ScratchDir dir{"bin"};
    std::string path = dir.file("w.bin");
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ~Sink() { ::close(fd); }
};

// Large blobs from memory go through vmsplice + splice; a file that cannot take splices (opened
// O_APPEND: the kernel refuses splice to it) gets the same bytes by write().
TEST(BinWriter, WritesTheSameBytesWithAndWithoutSplicing) {
    const size_t big = (size_t{5} << 20) + 3;
    auto small = std::make_shared<OwnedBuffer>(pattern(1000, 7));
    auto large = std::make_shared<OwnedBuffer>(pattern(big, 8));
    for (int flags : {O_WRONLY | O_CREAT | O_TRUNC, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND}) {
        SCOPED_TRACE(flags & O_APPEND ? "O_APPEND" : "plain");
        test::ScratchDir dir{"bin_splice"};
        const std::string path = dir.file("w.bin");
        const int fd = ::open(path.c_str(), flags, 0644);
        ASSERT_GE(fd, 0);
        {
            BinWriter w(fd, path);
            w.add(*small, small->data(), small->size());
            w.add(*large, large->data(), large->size());
            w.add(*small, small->data() + 1, small->size() - 1);
            w.flush();
        }
        ::close(fd);
        const std::string bytes = test::read_bytes(path);
        ASSERT_EQ(bytes.size(), 1000u + big + 999u);
        EXPECT_EQ(std::memcmp(bytes.data(), small->data(), 1000), 0);
        EXPECT_EQ(std::memcmp(bytes.data() + 1000, large->data(), big), 0);
        EXPECT_EQ(std::memcmp(bytes.data() + 1000 + big, small->data() + 1, 999), 0);
    }
}

TEST(BinWriter, AppendsInOrderAndDeduplicatesSmallAndLargeBlobs) {
    const size_t big = (size_t{3} << 20) + 5;  // above the direct-write threshold, odd size
    auto a = std::make_shared<OwnedBuffer>(pattern(100, 1));
    auto large = std::make_shared<OwnedBuffer>(pattern(big, 2));
    auto large_copy = std::make_shared<OwnedBuffer>(pattern(big, 2));
    auto c = std::make_shared<OwnedBuffer>(pattern(7, 3));
    auto a_copy = std::make_shared<OwnedBuffer>(pattern(100, 1));

    Sink sink;
    BinWriter w(sink.fd, sink.path);
    EXPECT_EQ(w.add(*a, a->data(), a->size()).offset, 0u);
    EXPECT_EQ(w.add(*large, large->data(), large->size()).offset, 100u);
    auto dup_large = w.add(*large_copy, large_copy->data(), large_copy->size());
    EXPECT_EQ(dup_large.offset, 100u);
    EXPECT_EQ(dup_large.size, big);
    EXPECT_EQ(w.add(*c, c->data(), c->size()).offset, 100u + big);  // written where the duplicate was cut off
    EXPECT_EQ(w.add(*a_copy, a_copy->data(), a_copy->size()).offset, 0u);
    EXPECT_EQ(w.add(*c, c->data(), 0).size, 0u);
    w.flush();
    EXPECT_EQ(w.bytes_written(), 100u + big + 7u);
    EXPECT_EQ(w.deduplicated_blobs(), 2u);

    std::string bytes = test::read_bytes(sink.path);
    ASSERT_EQ(bytes.size(), 100u + big + 7u);
    EXPECT_EQ(std::memcmp(bytes.data(), a->data(), 100), 0);
    EXPECT_EQ(std::memcmp(bytes.data() + 100, large->data(), big), 0);
    EXPECT_EQ(std::memcmp(bytes.data() + 100 + big, c->data(), 7), 0);
}

TEST(BinWriter, BlobsThatDifferOnlyAtTheEndAreNotMerged) {
    auto a = std::make_shared<OwnedBuffer>(pattern(4096 + 3, 9));
    auto bytes = pattern(4096 + 3, 9);
    bytes.back() ^= std::byte{1};
    auto b = std::make_shared<OwnedBuffer>(bytes);
    Sink sink;
    BinWriter w(sink.fd, sink.path);
    w.add(*a, a->data(), a->size());
    EXPECT_EQ(w.add(*b, b->data(), b->size()).offset, 4096u + 3);
    w.flush();
    EXPECT_EQ(w.deduplicated_blobs(), 0u);
}

TEST(BinWriter, LargeBlobsThatDifferOnlyInTheMiddleAreNotMerged) {
    const size_t big = size_t{2} << 20;
    auto a = std::make_shared<OwnedBuffer>(pattern(big, 4));
    auto bytes = pattern(big, 4);
    bytes[big / 2] ^= std::byte{0x80};  // same head and tail: the sampled keys collide
    auto b = std::make_shared<OwnedBuffer>(bytes);
    Sink sink;
    BinWriter w(sink.fd, sink.path);
    EXPECT_EQ(w.add(*a, a->data(), big).offset, 0u);
    EXPECT_EQ(w.add(*b, b->data(), big).offset, big);
    w.flush();
    EXPECT_EQ(w.deduplicated_blobs(), 0u);
    std::string out = test::read_bytes(sink.path);
    ASSERT_EQ(out.size(), 2 * big);
    EXPECT_EQ(std::memcmp(out.data() + big, bytes.data(), big), 0);
}

TEST(BinWriter, FileViewsAreWrittenCorrectlyAfterTheirPagesAreReleased) {
    test::ScratchDir dir("bin_src");
    auto content = pattern((size_t{9} << 20) + 123, 5);
    std::string src = dir.file("weights.raw");
    std::ofstream(src, std::ios::binary).write(reinterpret_cast<const char*>(content.data()), content.size());
    auto file = MappedFile::open(src);
    // Two views of the same file: one large, one small, plus the large one again (a duplicate).
    auto view_large = std::make_shared<ViewBuffer>(file, file->data() + 1, content.size() - 1);
    auto view_small = std::make_shared<ViewBuffer>(file, file->data() + 10, 1000);
    Sink sink;
    BinWriter w(sink.fd, sink.path);
    EXPECT_EQ(w.add(*view_small, view_small->data(), view_small->size()).offset, 0u);
    EXPECT_EQ(w.add(*view_large, view_large->data(), view_large->size()).offset, 1000u);
    EXPECT_EQ(w.add(*view_large, view_large->data(), view_large->size()).offset, 1000u);
    w.flush();
    std::string bytes = test::read_bytes(sink.path);
    ASSERT_EQ(bytes.size(), 1000u + content.size() - 1);
    EXPECT_EQ(std::memcmp(bytes.data(), content.data() + 10, 1000), 0);
    EXPECT_EQ(std::memcmp(bytes.data() + 1000, content.data() + 1, content.size() - 1), 0);
}

// A large file view at an unaligned offset is spliced from its file through the pipe; a file
// that refuses splices (O_APPEND) gets the same bytes: the piece already in the pipe by read()
// and write(), the rest by copy_file_range or write().
TEST(BinWriter, UnalignedFileViewsGiveTheSameBytesWithAndWithoutSplicing) {
    test::ScratchDir src_dir("bin_src_unaligned");
    auto content = pattern((size_t{3} << 20) + 5, 11);
    const std::string src = src_dir.file("weights.raw");
    std::ofstream(src, std::ios::binary).write(reinterpret_cast<const char*>(content.data()), content.size());
    auto file = MappedFile::open(src);
    auto view = std::make_shared<ViewBuffer>(file, file->data() + 3, content.size() - 3);
    for (int flags : {O_WRONLY | O_CREAT | O_TRUNC, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND}) {
        SCOPED_TRACE(flags & O_APPEND ? "O_APPEND" : "plain");
        test::ScratchDir dir{"bin_splice_file"};
        const std::string path = dir.file("w.bin");
        const int fd = ::open(path.c_str(), flags, 0644);
        ASSERT_GE(fd, 0);
        {
            BinWriter w(fd, path);
            EXPECT_EQ(w.add(*view, view->data(), view->size()).offset, 0u);
            w.flush();
        }
        ::close(fd);
        const std::string bytes = test::read_bytes(path);
        ASSERT_EQ(bytes.size(), content.size() - 3);
        EXPECT_EQ(std::memcmp(bytes.data(), content.data() + 3, bytes.size()), 0);
    }
}

// A file view that starts on a page of its file is copied to a 64 KiB multiple of the BIN (zeros
// before it), where the kernel copies it fastest; one that does not is placed right after the
// bytes before it.
TEST(BinWriter, PageAlignedFileViewsAreCopiedTo64KiBOffsets) {
    test::ScratchDir dir("bin_src_aligned");
    auto content = pattern(size_t{3} << 20, 9);
    std::string src = dir.file("weights.raw");
    std::ofstream(src, std::ios::binary).write(reinterpret_cast<const char*>(content.data()), content.size());
    auto file = MappedFile::open(src);
    auto aligned = std::make_shared<ViewBuffer>(file, file->data() + 4096, size_t{1} << 20);
    auto unaligned = std::make_shared<ViewBuffer>(file, file->data() + 100, (size_t{1} << 20) + 7);
    auto small = std::make_shared<ViewBuffer>(file, file->data() + 5, 4096);
    Sink sink;
    BinWriter w(sink.fd, sink.path);
    EXPECT_EQ(w.add(*small, small->data(), small->size()).offset, 0u);
    EXPECT_EQ(w.add(*aligned, aligned->data(), aligned->size()).offset, 65536u);
    const uint64_t after = 65536u + (size_t{1} << 20);
    EXPECT_EQ(w.add(*unaligned, unaligned->data(), unaligned->size()).offset, after);
    w.flush();
    EXPECT_EQ(w.padding_bytes(), 65536u - 4096u);
    std::string bytes = test::read_bytes(sink.path);
    ASSERT_EQ(bytes.size(), after + (size_t{1} << 20) + 7);
    EXPECT_EQ(std::memcmp(bytes.data(), content.data() + 5, 4096), 0);
    EXPECT_TRUE(std::all_of(bytes.begin() + 4096, bytes.begin() + 65536, [](char c) { return c == 0; }));
    EXPECT_EQ(std::memcmp(bytes.data() + 65536, content.data() + 4096, size_t{1} << 20), 0);
    EXPECT_EQ(std::memcmp(bytes.data() + after, content.data() + 100, (size_t{1} << 20) + 7), 0);
}

// Byte p of the result is (7p + 3) mod 256, computed on request; counts the requests and the
// largest piece asked for (requests may run on several threads at once).
class CountingDerived final : public DerivedBuffer {
public:
    explicit CountingDerived(size_t size) : DerivedBuffer(size) {}
    void produce(size_t offset, std::byte* out, size_t n) const override {
        ++calls;
        for (size_t seen = largest.load(); n > seen && !largest.compare_exchange_weak(seen, n);) {
        }
        for (size_t i = 0; i < n; ++i) out[i] = static_cast<std::byte>(((offset + i) * 7 + 3) & 0xff);
    }
    mutable std::atomic<int> calls{0};
    mutable std::atomic<size_t> largest{0};
};

TEST(BinWriter, LargeDerivedBuffersAreProducedInBoundedPiecesAndStoredOnce) {
    const size_t big = (size_t{20} << 20) + 9;  // several windows and a short last one
    auto derived = std::make_shared<CountingDerived>(big);
    Tensor t(ElementType::u8, {static_cast<int64_t>(big)}, derived);
    Sink sink;
    BinWriter w(sink.fd, sink.path);
    EXPECT_EQ(w.add(Tensor::from_vector<uint8_t>({1, 2, 3}, {3})).offset, 0u);
    EXPECT_EQ(w.add(t).offset, 3u);
    EXPECT_EQ(w.add(t).offset, 3u);  // the same buffer again
    w.flush();
    EXPECT_FALSE(derived->materialized());  // never held whole
    EXPECT_GE(derived->calls.load(), 3);
    EXPECT_LE(derived->largest.load(), size_t{8} << 20);
    EXPECT_EQ(w.deduplicated_blobs(), 1u);
    std::string bytes = test::read_bytes(sink.path);
    ASSERT_EQ(bytes.size(), 3 + big);
    for (size_t i = 0; i < big; i += 4099)
        ASSERT_EQ(static_cast<uint8_t>(bytes[3 + i]), static_cast<uint8_t>((i * 7 + 3) & 0xff)) << i;
    EXPECT_EQ(static_cast<uint8_t>(bytes[3 + big - 1]), static_cast<uint8_t>(((big - 1) * 7 + 3) & 0xff));
    // Anyone else asking for the bytes gets them computed once and kept.
    EXPECT_EQ(static_cast<uint8_t>(t.data<uint8_t>()[big - 1]), static_cast<uint8_t>(((big - 1) * 7 + 3) & 0xff));
    EXPECT_TRUE(derived->materialized());
}

// f32 values exactly representable in f16, so the expected f16 bits are known: value i is
// ((i mod 4093) - 2046) / 8, whose f16 decodes to itself.
std::vector<float> f16_exact_values(size_t n) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>(i % 4093) - 2046) / 8.0f;
    return v;
}

std::shared_ptr<F16Weights> unchecked_f16(const std::vector<float>& values) {
    return std::make_shared<F16Weights>(Tensor::from_vector<float>(values, {static_cast<int64_t>(values.size())}), false);
}

// Windows after the first are produced on other threads while the first is written; each is
// checked as it is converted, and every byte lands where the placement says.
TEST(BinWriter, F16WeightsAreConvertedCheckedAndWrittenInOneSweep) {
    const size_t n = (size_t{4} << 20) + 3;  // f16: 8 MiB and 6 bytes, two windows, the last one short
    const std::vector<float> values = f16_exact_values(n);
    auto weights = unchecked_f16(values);
    Sink sink;
    BinWriter w(sink.fd, sink.path);
    EXPECT_EQ(w.add(Tensor::from_vector<uint8_t>({1, 2, 3}, {3})).offset, 0u);
    auto placed = w.add_f16(*weights);
    ASSERT_TRUE(placed.has_value());
    EXPECT_EQ(placed->offset, 3u);
    EXPECT_EQ(placed->size, 2 * n);
    EXPECT_EQ(w.add_f16(*weights)->offset, 3u);  // stored once
    w.flush();
    EXPECT_FALSE(weights->materialized());
    EXPECT_TRUE(weights->known_to_fit());
    const std::string bytes = test::read_bytes(sink.path);
    ASSERT_EQ(bytes.size(), 3 + 2 * n);
    for (size_t i = 0; i < n; ++i) {
        uint16_t bits;
        std::memcpy(&bits, bytes.data() + 3 + 2 * i, 2);
        ASSERT_EQ(f16_to_f32(bits), values[i]) << i;
    }
}

// A value beyond the f16 range found early or late in the first window, or in the last one: add_f16 says
// so and leaves the file as it was, and what comes next lands right after the earlier blobs.
TEST(BinWriter, F16WeightsBeyondTheRangeLeaveNothingInTheFile) {
    const size_t n = (size_t{4} << 20) + 3;
    for (size_t at : {size_t{0}, size_t{3} << 20, n - 1}) {
        std::vector<float> values = f16_exact_values(n);
        values[at] = -70000.f;
        auto weights = unchecked_f16(values);
        Sink sink;
        BinWriter w(sink.fd, sink.path);
        EXPECT_EQ(w.add(Tensor::from_vector<uint8_t>({1, 2, 3}, {3})).offset, 0u);
        EXPECT_FALSE(w.add_f16(*weights).has_value()) << at;
        EXPECT_FALSE(w.add_f16(*weights).has_value()) << "known now: " << at;
        EXPECT_FALSE(weights->fits());
        EXPECT_EQ(w.bytes_written(), 3u);
        EXPECT_EQ(w.add(Tensor::from_vector<uint8_t>({4, 5}, {2})).offset, 3u);
        w.flush();
        EXPECT_EQ(test::read_bytes(sink.path), std::string("\x01\x02\x03\x04\x05", 5)) << at;
    }
}

// Small unchecked f16 weights are checked apart and stored with the small blobs.
TEST(BinWriter, SmallF16WeightsAreCheckedApart) {
    auto fitting = unchecked_f16({1.f, -2.f, 0.5f});
    auto beyond = unchecked_f16({1.f, 1e5f});
    Sink sink;
    BinWriter w(sink.fd, sink.path);
    EXPECT_FALSE(w.add_f16(*beyond).has_value());
    auto placed = w.add_f16(*fitting);
    ASSERT_TRUE(placed.has_value());
    EXPECT_EQ(placed->offset, 0u);
    w.flush();
    EXPECT_EQ(test::read_bytes(sink.path), std::string("\x00\x3c\x00\xc0\x00\x38", 6));  // 1, -2, 0.5 in f16
}

// Small f16 weights are not kept once written: an equal one later is compared with the bytes in
// the file (here after the buffer was written out) or still in the buffer, and stored once.
TEST(BinWriter, SmallF16WeightsEqualToOnesWrittenEarlierAreStoredOnce) {
    auto first = unchecked_f16({1.f, -2.f, 0.5f});
    auto same = unchecked_f16({1.f, -2.f, 0.5f});
    auto other = unchecked_f16({1.f, -2.f, 0.25f});
    auto buffered = unchecked_f16({3.f, 4.f});
    auto buffered_again = unchecked_f16({3.f, 4.f});
    test::ScratchDir dir{"bin_f16_dup"};
    const std::string path = dir.file("w.bin");
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    {
        BinWriter w(fd, path);
        EXPECT_EQ(w.add_f16(*first)->offset, 0u);
        w.flush();
        EXPECT_EQ(w.add_f16(*same)->offset, 0u);
        EXPECT_EQ(w.add_f16(*other)->offset, 6u);
        EXPECT_EQ(w.add_f16(*buffered)->offset, 12u);
        EXPECT_EQ(w.add_f16(*buffered_again)->offset, 12u);
        EXPECT_EQ(w.deduplicated_blobs(), 2u);
        w.flush();
        EXPECT_FALSE(same->materialized());
    }
    ::close(fd);
    // 1, -2, 0.5 | 1, -2, 0.25 | 3, 4 in f16
    EXPECT_EQ(test::read_bytes(path), std::string("\x00\x3c\x00\xc0\x00\x38\x00\x3c\x00\xc0\x00\x34\x00\x42\x00\x44", 16));
}

// A file that cannot be read back (write-only) still gets every small f16 weight, equal ones
// stored again rather than merged unseen.
TEST(BinWriter, SmallF16WeightsInAWriteOnlyFileAreStoredAgain) {
    auto first = unchecked_f16({1.f, -2.f});
    auto same = unchecked_f16({1.f, -2.f});
    Sink sink;
    BinWriter w(sink.fd, sink.path);
    EXPECT_EQ(w.add_f16(*first)->offset, 0u);
    w.flush();
    EXPECT_EQ(w.add_f16(*same)->offset, 4u);
    w.flush();
    EXPECT_EQ(test::read_bytes(sink.path), std::string("\x00\x3c\x00\xc0\x00\x3c\x00\xc0", 8));
}

}  // namespace
}  // namespace mo
