// Fuzz target: an IR v11 pair (split(): model.xml, then model.bin) read by mo's strict IR reader,
// then written again by the emitter and read back.
#include "core/error.hpp"
#include "emit/ir_writer.hpp"
#include "fuzz/fuzz_support.hpp"
#include "loaders/ir/ir_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto [xml, bin] = mo::fuzz::split({data, size});
    mo::fuzz::put("model.bin", bin);
    const std::string path = mo::fuzz::put("model.xml", xml);
    try {
        auto graph = mo::read_ir(path, mo::fuzz::builtins().ops);
        mo::EmitOptions out;
        out.xml_path = (mo::fuzz::scratch() / "again.xml").string();
        out.bin_path = (mo::fuzz::scratch() / "again.bin").string();
        out.model_name = "again";
        mo::write_ir(*graph, out);
        mo::read_ir(out.xml_path, mo::fuzz::builtins().ops);
    } catch (const mo::Error&) {
    }
    return 0;
}
