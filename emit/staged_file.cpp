#include "emit/staged_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace mo {

StagedFile::StagedFile(std::string final_path) : final_path_(std::move(final_path)) {
    std::filesystem::path p(final_path_);
    temp_path_ = (p.parent_path() / ("." + p.filename().string() + "." + std::to_string(::getpid()) + ".tmp")).string();
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0)
        throw Error(std::string("cannot create output file: ") + std::strerror(errno), temp_path_,
                    "check that the output directory exists and is writable");
}

StagedFile::~StagedFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temp_path_.c_str());
}

void StagedFile::commit() {
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0)
        throw Error(std::string("cannot write output file: ") + std::strerror(errno), temp_path_,
                    "check free disk space");
    if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0)
        throw Error(std::string("cannot rename output file: ") + std::strerror(errno), final_path_,
                    "check that the output directory is writable");
    committed_ = true;
}

void StagedFile::remove_committed() {
    if (committed_) ::unlink(final_path_.c_str());
}

}  // namespace mo
