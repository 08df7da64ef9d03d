// A read-only memory mapping of a whole file. Tensors view it through ViewBuffer, which
// holds a shared_ptr to the mapping so the file stays mapped while any weight refers to it.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace mo {

class MappedFile {
public:
    // Maps `path`; throws mo::Error naming the file when it cannot be opened or mapped.
    static std::shared_ptr<const MappedFile> open(const std::string& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::byte* data() const { return data_; }
    size_t size() const { return size_; }
    std::span<const std::byte> bytes() const { return {data_, size_}; }
    const std::string& path() const { return path_; }
    // The open descriptor of the file (kept for in-kernel copies of its bytes).
    int fd() const { return fd_; }

    // Copies the n bytes at `ptr` (inside this mapping) to `out` with pread: no page of the
    // mapping is touched, so nothing joins the resident set and no page faults are taken.
    // Falls back to copying from the mapping if pread fails.
    void read(const std::byte* ptr, std::byte* out, size_t n) const;

    // Tells the kernel this process no longer needs the pages of [ptr, ptr+len); they leave
    // the resident set but stay readable (they are paged in again on the next access).
    static void release_pages(const std::byte* ptr, size_t len);

private:
    MappedFile() = default;
    const std::byte* data_ = nullptr;
    size_t size_ = 0;
    int fd_ = -1;
    std::string path_;
};

}  // namespace mo
