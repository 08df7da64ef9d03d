#include "emit/staged_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace mo {

namespace {

// The temporaries being written, for the signal handler: fixed slots of plain characters, since
// a handler may only call async-signal-safe functions (unlink, signal, raise).
constexpr int kSlots = 8;
constexpr size_t kPathMax = 4096;
char g_paths[kSlots][kPathMax];
std::atomic<bool> g_used[kSlots];

int remember(const std::string& path) {
    if (path.size() >= kPathMax) return -1;
    for (int i = 0; i < kSlots; ++i) {
        bool expected = false;
        if (g_used[i].compare_exchange_strong(expected, true)) {
            std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
            return i;
        }
    }
    return -1;  // more files at once than slots: the others are not cleaned on a signal
}

void forget(int slot) {
    if (slot >= 0) g_used[slot] = false;
}

extern "C" void remove_staged_and_reraise(int sig) {
    for (int i = 0; i < kSlots; ++i)
        if (g_used[i]) ::unlink(g_paths[i]);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

}  // namespace

void remove_staged_files_on_signals() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::signal(sig, remove_staged_and_reraise);
}

void remove_staged_files_on_default_signals() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
        struct sigaction current {};
        if (::sigaction(sig, nullptr, &current) == 0 && !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL)
            ::signal(sig, remove_staged_and_reraise);
    }
}

StagedFile::StagedFile(std::string final_path) : final_path_(std::move(final_path)) {
    std::filesystem::path p(final_path_);
    temp_path_ = (p.parent_path() / ("." + p.filename().string() + "." + std::to_string(::getpid()) + ".tmp")).string();
    slot_ = remember(temp_path_);
    fd_ = ::open(temp_path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) {
        forget(slot_);
        throw Error(std::string("cannot create output file: ") + std::strerror(errno), temp_path_,
                    "check that the output directory exists and is writable");
    }
}

StagedFile::~StagedFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temp_path_.c_str());
    forget(slot_);
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
    forget(slot_);
    slot_ = -1;
}

void StagedFile::remove_committed() {
    if (committed_) ::unlink(final_path_.c_str());
}

}  // namespace mo
