// mo._mo: the Python module's native half, a thin layer over the library's driver
// (tools/cli.hpp parses the keywords as the `mo` command parses its flags; tools/held_model.hpp
// converts, saves, reads and runs). The keywords themselves are turned into flags in
// python/mo/_keywords.py. The GIL is released whenever the library works.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "core/log.hpp"
#include "emit/staged_file.hpp"
#include "tools/cli.hpp"
#include "tools/convert.hpp"
#include "tools/held_model.hpp"
#include "tools/validate_conversion.hpp"

#ifndef MO_VERSION
#define MO_VERSION "unknown"
#endif

namespace py = pybind11;

namespace {

// numpy's name of each element type numpy has; bf16 and the sub-byte types are widened.
const char* numpy_name(mo::ElementType t) {
    using E = mo::ElementType;
    switch (t) {
    case E::boolean: return "bool";
    case E::f16: return "float16";
    case E::f32: return "float32";
    case E::f64: return "float64";
    case E::i8: return "int8";
    case E::i16: return "int16";
    case E::i32: return "int32";
    case E::i64: return "int64";
    case E::u8: return "uint8";
    case E::u16: return "uint16";
    case E::u32: return "uint32";
    case E::u64: return "uint64";
    default: return nullptr;
    }
}

// The type numpy gets for an element type it has no name for.
mo::ElementType widened(mo::ElementType t) {
    using E = mo::ElementType;
    if (t == E::bf16) return E::f32;
    if (t == E::i4) return E::i8;
    if (t == E::u4 || t == E::u1) return E::u8;
    return t;
}

// The evaluator's tensor as a numpy array over the same bytes: the array holds the buffer alive.
// Writable only when nothing else shares the bytes (an output that is a constant of the model or
// an input shares them); widened types are copied.
py::array to_numpy(mo::Tensor t) {
    if (!numpy_name(t.type())) {
        const mo::ElementType to = widened(t.type());
        if (!numpy_name(to))
            throw mo::Error("an output of type " + std::string(mo::ir_name(t.type())) + " has no numpy equivalent");
        t = t.convert(to);
    }
    std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
    const bool writable = t.buffer() && t.buffer().use_count() == 1 &&
                          dynamic_cast<const mo::OwnedBuffer*>(t.buffer().get()) != nullptr;
    auto* holder = new std::shared_ptr<const mo::Buffer>(t.buffer());
    py::capsule base(holder, [](void* p) { delete static_cast<std::shared_ptr<const mo::Buffer>*>(p); });
    py::array a(py::dtype(numpy_name(t.type())), shape, {}, t.size() ? t.bytes() : nullptr, base);
    if (!writable) a.attr("setflags")(py::arg("write") = false);
    return a;
}

// A C-contiguous array of the input's numpy type (python/mo/_model.py checks and converts) as a
// tensor of its own: the evaluator may keep inputs in a stateful model's variables.
mo::Tensor from_numpy(const py::array& a, mo::ElementType type) {
    const char* name = numpy_name(type);
    if (!name) throw py::type_error("mo cannot take inputs of type " + std::string(mo::ir_name(type)));
    if (!a.dtype().is(py::dtype(name)) || !(a.flags() & py::array::c_style))
        throw py::type_error(std::string("expected a C-contiguous ") + name + " array");
    mo::Shape shape(a.shape(), a.shape() + a.ndim());
    mo::Tensor t = mo::Tensor::allocate(type, shape);
    if (t.byte_size()) std::memcpy(t.mutable_data<std::byte>(), a.data(), t.byte_size());
    return t;
}

py::dict port_dict(const mo::ModelPort& p) {
    py::list dims;
    if (p.shape.rank_is_static())
        for (const mo::Dimension& d : p.shape.dims())
            dims.append(d.is_static() ? py::object(py::int_(d.min()))
                                      : py::object(py::make_tuple(d.min(), d.max() == mo::Dimension::kUnbounded
                                                                               ? py::object(py::none())
                                                                               : py::object(py::int_(d.max())))));
    py::dict d;
    d["name"] = p.name;
    d["names"] = p.names;
    d["type"] = std::string(mo::ir_name(p.type));
    d["dtype"] = numpy_name(p.type) ? py::object(py::str(numpy_name(p.type))) : py::object(py::none());
    d["shape"] = p.shape.to_string();
    d["dims"] = p.shape.rank_is_static() ? py::object(dims) : py::object(py::none());
    return d;
}

std::vector<mo::Tensor> tensors_for(const mo::HeldModel& m, const std::vector<py::array>& arrays) {
    const auto& params = m.graph().parameters();
    if (arrays.size() != params.size())
        throw py::value_error("the model has " + std::to_string(params.size()) + " inputs, " +
                              std::to_string(arrays.size()) + " were given");
    std::vector<mo::Tensor> tensors;
    for (size_t i = 0; i < arrays.size(); ++i) tensors.push_back(from_numpy(arrays[i], params[i].out(0).type()));
    return tensors;
}

py::list arrays_of(std::vector<mo::Tensor> tensors) {
    py::list out;
    for (mo::Tensor& t : tensors) out.append(to_numpy(std::move(t)));
    return out;
}

// Raises mo.ConversionError(message, what, where, hint) for a mo::Error, ValueError for a bad
// keyword (the `mo` command's exit code 2), MemoryError for an exhausted allocation and
// RuntimeError for anything else (an internal error, as `mo` calls exit code 3).
void translate(std::exception_ptr p) {
    try {
        std::rethrow_exception(p);
    } catch (const mo::UsageError& e) {
        PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const mo::Error& e) {
        py::object cls = py::module_::import("mo._errors").attr("ConversionError");
        py::object err = cls(e.what(), e.what_part(), e.where(), e.hint());
        PyErr_SetObject(cls.ptr(), err.ptr());
    } catch (const std::bad_alloc&) {
        PyErr_SetString(PyExc_MemoryError, "out of memory");
    } catch (const std::logic_error& e) {
        const std::string prefix = "internal error (please report): ", what = e.what();
        PyErr_SetString(PyExc_RuntimeError, ((what.rfind(prefix, 0) == 0 ? "" : prefix) + what).c_str());
    }
}

std::string absolute(const std::string& path) {
    std::error_code ec;
    auto p = std::filesystem::absolute(path, ec);
    return ec ? path : p.lexically_normal().string();
}

// `python3 -m mo ARGS`: what the `mo` command prints to stdout for ARGS, with its exit code; its
// errors are raised and python/mo/__main__.py prints them as `mo` does.
std::pair<int, std::string> mo_command(const std::vector<std::string>& args) {
    const auto start = std::chrono::steady_clock::now();
    mo::CliRequest req = mo::parse_command_line(args);
    if (req.action == mo::CliRequest::Action::Help) return {0, mo::usage_text()};
    if (req.action == mo::CliRequest::Action::Version) return {0, std::string("mo ") + MO_VERSION + " (OpenVINO IR v11)\n"};
    mo::set_log_level(req.log_level);
    if (req.action == mo::CliRequest::Action::ListTransformations) return {0, mo::list_transformations(req.options)};
    mo::ConversionResult result = mo::convert(req.options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    struct rusage usage {};
    ::getrusage(RUSAGE_SELF, &usage);
    char line[160];
    std::string out = "[ SUCCESS ] Generated IR version 11 model.\n[ SUCCESS ] XML file: " + absolute(result.xml_path) +
                      "\n[ SUCCESS ] BIN file: " + absolute(result.bin_path) + "\n[ SUCCESS ] Layers: " +
                      std::to_string(result.layers) + ", weights: " + std::to_string(result.bin_bytes) + " bytes\n";
    std::snprintf(line, sizeof line, "[ SUCCESS ] Total execution time: %.2f seconds.\n", seconds);
    out += line;
    std::snprintf(line, sizeof line, "[ SUCCESS ] Memory consumed: %.0f MB.\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
    out += line;
    if (!req.validation.enabled) return {0, out};
    mo::ConversionValidation v = mo::validate_conversion(req.options, result, req.validation);
    out += "[ VALIDATE ] " + v.report;
    if (!v.report.empty() && v.report.back() != '\n') out += "\n";
    out += v.ok ? "[ VALIDATE ] passed\n" : "[ VALIDATE ] FAILED: outputs differ beyond tolerance (the IR was written)\n";
    return {v.ok ? 0 : 1, out};
}

}  // namespace

PYBIND11_MODULE(_mo, m) {
    m.doc() = "mo's converter, IR writer, IR reader and evaluator (use the mo package, not this module)";
    py::register_exception_translator(translate);
    // A process ended by SIGTERM, SIGHUP or SIGQUIT while saving leaves no temporaries (SIGINT is
    // Python's KeyboardInterrupt: raised once the save has finished).
    mo::remove_staged_files_on_default_signals();

    // The `mo` command line, parsed as `mo` parses it; "mo.ConversionOptions" stay in C++.
    m.def(
        "convert",
        [](const std::vector<std::string>& args, const std::string& external_data_dir,
           const std::string& input_model_label) {
            mo::CliRequest req = mo::parse_command_line(args);
            if (req.action != mo::CliRequest::Action::Convert)
                throw mo::UsageError("only conversions are done here", "command line");
            mo::set_log_level(req.log_level);
            req.options.external_data_dir = external_data_dir;
            if (!input_model_label.empty())
                for (auto& [flag, value] : req.options.cli_parameters)
                    if (flag == "input_model") value = input_model_label;
            py::gil_scoped_release release;
            return mo::HeldModel::convert(req.options);
        },
        py::arg("args"), py::arg("external_data_dir") = "", py::arg("input_model_label") = "");

    m.def(
        "read_model",
        [](const std::string& xml_path, const std::vector<std::string>& extensions) {
            py::gil_scoped_release release;
            return mo::HeldModel::read_ir(xml_path, extensions);
        },
        py::arg("xml_path"), py::arg("extensions") = std::vector<std::string>{});

    m.def("mo_command", [](const std::vector<std::string>& args) {
        py::gil_scoped_release release;
        return mo_command(args);
    });
    // For `python3 -m mo` alone: like `mo`, an interrupted conversion removes its temporaries.
    m.def("remove_staged_files_on_signals", &mo::remove_staged_files_on_signals);

    py::class_<mo::HeldModel>(m, "HeldModel")
        .def_property_readonly("inputs",
                               [](const mo::HeldModel& h) {
                                   py::list l;
                                   for (const auto& p : h.inputs()) l.append(port_dict(p));
                                   return l;
                               })
        .def_property_readonly("outputs",
                               [](const mo::HeldModel& h) {
                                   py::list l;
                                   for (const auto& p : h.outputs()) l.append(port_dict(p));
                                   return l;
                               })
        .def_property_readonly("compress_to_fp16", [](const mo::HeldModel& h) { return h.options().compress_to_fp16; })
        .def("ops",
             [](const mo::HeldModel& h) {
                 std::map<std::string, size_t> counts;
                 for (const mo::Node& n : h.graph().nodes()) ++counts[n.type()];
                 return counts;
             })
        .def(
            "save",
            [](const mo::HeldModel& h, const std::string& xml_path, bool compress) {
                mo::ConversionResult r;
                {
                    py::gil_scoped_release release;
                    r = h.save(xml_path, compress);
                }
                return py::make_tuple(r.xml_path, r.bin_path, r.layers, r.bin_bytes);
            },
            py::arg("xml_path"), py::arg("compress_to_fp16"))
        .def("run",
             [](mo::HeldModel& h, const std::vector<py::array>& inputs) {
                 std::vector<mo::Tensor> tensors = tensors_for(h, inputs);
                 std::vector<mo::Tensor> outputs;
                 {
                     py::gil_scoped_release release;
                     outputs = h.run(tensors);
                     tensors.clear();
                 }
                 return arrays_of(std::move(outputs));
             })
        .def("reset_state",
             [](mo::HeldModel& h) {
                 py::gil_scoped_release release;
                 h.reset_state();
             })
        .def("random_inputs", [](const mo::HeldModel& h, uint64_t seed) { return arrays_of(h.random_inputs(seed)); })
        .def("validate", [](const mo::HeldModel& h, const std::vector<py::array>& inputs,
                            const std::vector<py::array>& expected, double rtol, double atol) {
            std::vector<mo::Tensor> in = tensors_for(h, inputs), ref;
            const auto& results = h.graph().results();
            if (expected.size() != results.size())
                throw py::value_error("the model has " + std::to_string(results.size()) + " outputs, " +
                                      std::to_string(expected.size()) + " references were given");
            for (size_t i = 0; i < expected.size(); ++i) {
                const std::string dtype = py::str(expected[i].dtype());
                mo::ElementType type = mo::ElementType::dynamic;
                for (mo::ElementType t : {mo::ElementType::boolean, mo::ElementType::f16, mo::ElementType::f32,
                                          mo::ElementType::f64, mo::ElementType::i8, mo::ElementType::i16,
                                          mo::ElementType::i32, mo::ElementType::i64, mo::ElementType::u8,
                                          mo::ElementType::u16, mo::ElementType::u32, mo::ElementType::u64})
                    if (dtype == numpy_name(t)) type = t;
                if (type == mo::ElementType::dynamic) throw py::type_error("a reference of dtype " + dtype + " cannot be compared");
                ref.push_back(from_numpy(expected[i], type));
            }
            mo::ModelValidation v;
            {
                py::gil_scoped_release release;
                v = h.validate(in, ref, mo::Tolerance{atol, rtol});
            }
            py::list outputs;
            for (const mo::Comparison& c : v.outputs) {
                py::dict d;
                d["name"] = c.name;
                d["ok"] = c.ok;
                d["problem"] = c.problem;
                d["elements"] = c.elements;
                d["mismatches"] = c.mismatches;
                d["max_abs_error"] = c.max_abs_error;
                d["max_rel_error"] = c.max_rel_error;
                outputs.append(d);
            }
            return py::make_tuple(v.ok, v.text, outputs);
        });
}
