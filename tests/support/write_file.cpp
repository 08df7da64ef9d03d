#include "support/write_file.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace mo::test {

void write_file_atomically(const std::string& path, std::string_view bytes) {
    static std::atomic<unsigned> counter{0};
    const std::string temp = path + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    {
        std::ofstream f(temp, std::ios::binary | std::ios::trunc);
        f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!f) throw std::runtime_error("cannot write " + temp);
    }
    std::error_code ec;
    std::filesystem::rename(temp, path, ec);
    if (ec) throw std::runtime_error("cannot rename " + temp + " to " + path + ": " + ec.message());
}

std::string read_file_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace mo::test
