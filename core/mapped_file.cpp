#include "core/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace mo {

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(std::string("cannot open file: ") + std::strerror(errno), path, "check the path and permissions");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw Error("not a regular file", path, "pass the path of a model file");
    }
    std::shared_ptr<MappedFile> f(new MappedFile());
    f->path_ = path;
    f->size_ = static_cast<size_t>(st.st_size);
    if (f->size_ > 0) {
        void* p = ::mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            ::close(fd);
            throw Error(std::string("cannot map file: ") + std::strerror(errno), path);
        }
        f->data_ = static_cast<const std::byte*>(p);
    }
    f->fd_ = fd;
    return f;
}

MappedFile::~MappedFile() {
    if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
}

void MappedFile::read(const std::byte* ptr, std::byte* out, size_t n) const {
    off_t offset = ptr - data_;
    size_t done = 0;
    while (done < n) {
        ssize_t got = ::pread(fd_, out + done, n - done, offset + static_cast<off_t>(done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        done += static_cast<size_t>(got);
    }
    if (done < n) std::memcpy(out + done, ptr + done, n - done);
}

void MappedFile::release_pages(const std::byte* ptr, size_t len) {
    static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    auto begin = (reinterpret_cast<uintptr_t>(ptr) + page - 1) & ~(page - 1);  // only whole pages inside the range
    auto end = (reinterpret_cast<uintptr_t>(ptr) + len) & ~(page - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace mo
