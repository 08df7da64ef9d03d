#include "fuzz/fuzz_support.hpp"

#include <cstdlib>
#include <fstream>

#include "core/error.hpp"
#include "core/log.hpp"
#include "loaders/ir/ir_reader.hpp"
#include "driver/convert.hpp"

namespace mo::fuzz {

namespace fs = std::filesystem;

const fs::path& scratch() {
    static const fs::path dir = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/mo-fuzz-XXXXXX";
        if (!::mkdtemp(pattern.data())) std::abort();
        set_log_level(LogLevel::Error);  // warnings about odd models are expected by the thousand
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(scratch(), ec);
        });
        return fs::path(pattern);
    }();
    return dir;
}

std::string put(const std::string& name, std::span<const uint8_t> bytes) {
    const fs::path path = scratch() / name;
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!f) std::abort();  // the scratch disk is full: not the input's fault
    return path.string();
}

std::pair<std::span<const uint8_t>, std::span<const uint8_t>> split(std::span<const uint8_t> data) {
    if (data.size() < 4) return {{}, data};
    const uint32_t n = uint32_t(data[0]) | uint32_t(data[1]) << 8 | uint32_t(data[2]) << 16 | uint32_t(data[3]) << 24;
    const size_t first = std::min<size_t>(n, data.size() - 4);
    return {data.subspan(4, first), data.subspan(4 + first)};
}

const Pipeline& builtins() {
    static const Pipeline pipeline{ConversionOptions{}};
    return pipeline;
}

bool convert_quietly(const std::string& model, ConversionOptions options) {
    options.input_model = model;
    options.output_dir = (scratch() / "out").string();
    options.max_constant_bytes = kFuzzMaxConstantBytes;
    try {
        const ConversionResult result = convert(options);
        read_ir(result.xml_path, builtins().ops);  // what mo wrote, mo's strict reader must take
        return true;
    } catch (const Error&) {
        return false;
    }
}

}  // namespace mo::fuzz
