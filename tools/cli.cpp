#include "tools/cli.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

namespace mo {

namespace {

struct FlagSpec {
    const char* name;
    bool takes_value;
    const char* value_name;
    const char* help;
};

// The flags, in the order --help lists them.
const FlagSpec kFlags[] = {
    {"input_model", true, "FILE", "model file to convert (.onnx, .prototxt, .tflite, frozen .pb / .pbtxt, TF.js model.json, Caffe .caffemodel)"},
    {"input_proto", true, "FILE", "Caffe: the deploy.prototxt of the --input_model .caffemodel (default: the .prototxt beside it)"},
    {"output_dir", true, "DIR", "where to write <model_name>.xml and .bin (created if missing; default .)"},
    {"model_name", true, "NAME", "base name of the IR files (default: the input file's stem)"},
    {"output_format", true, "FORMATS", "ir (default), onnx, or ir,onnx: OpenVINO IR and/or <model_name>.onnx (docs/onnx-output.md)"},
    {"framework", true, "NAME", "source framework: onnx, tflite, tf, caffe or ir (default: guessed from the file)"},
    {"input_shape", true, "SHAPES", "shapes for the model inputs by position: [1,3,224,224] or [1,3,?,?],[1,10]"},
    {"input", true, "INPUTS", "inputs by name with optional shapes: a[1,3,?,?],b ('?' dynamic, 'a..b' interval)"},
    {"output", true, "NAMES", "comma-separated tensor names to cut the model at"},
    {"mean_values", true, "VALUES", "per-channel values subtracted from inputs: data[123,117,104] or [123,117,104] by position"},
    {"scale_values", true, "VALUES", "per-channel values inputs are divided by (after the means): data[58,57,57]"},
    {"reverse_input_channels", false, "", "reverse the channel order of 3-channel inputs (RGB <-> BGR), before means and scales"},
    {"batch", true, "N", "set the first dimension of every input to N"},
    {"static_shape", false, "", "require static input shapes, so that every shape computation folds into a constant"},
    {"layout", true, "LAYOUTS", "input layouts: nhwc->nchw (every input) or x(nhwc->nchw),y(nchw): the IR input takes the target layout"},
    {"source_layout", true, "LAYOUTS", "the layout the model reads an input in: nhwc or x(nhwc)"},
    {"target_layout", true, "LAYOUTS", "the layout the IR input takes: nchw or x(nchw)"},
    {"max_constant_size", true, "BYTES", "largest tensor constant folding may create, e.g. 512M (default 2G); larger results stay as ops"},
    {"compress_to_fp16", false, "[=True|False]", "store f32 weights as f16 plus a decompression Convert (default True)"},
    {"disable_nhwc_to_nchw", false, "", "keep NHWC sources' layout: Transposes around each NCHW-only op instead of the layout change"},
    {"log_level", true, "LEVEL", "ERROR, WARNING (default), INFO or DEBUG"},
    {"transformations_config", true, "FILE", "JSON file of configured transformations (docs/transformations-config.md)"},
    {"transform", true, "NAME", "MakeStateful[param_res_names={'in':'out',...}]: paired inputs and outputs become variables"},
    {"extensions", true, "PATHS", "comma-separated plugin libraries or directories of them (see docs/extending.md)"},
    {"list_transformations", false, "", "print the ordered transformations (id, phase, enabled, origin) and exit"},
    {"list_ops", false, "", "print every op schema (IR type, opset, inputs, outputs, attributes), plugins' included, and exit"},
    {"validate", false, "", "evaluate the written IR and compare it (see --validate_outputs); exit 1 beyond tolerance"},
    {"validate_inputs", true, "FILES", "comma-separated .npy inputs for --validate, by position or name=file (default: seeded random)"},
    {"validate_outputs", true, "FILES", "comma-separated reference .npy outputs (e.g. from the source framework)"},
    {"help", false, "", "print this help and exit"},
    {"version", false, "", "print the version and exit"},
};

const FlagSpec* find_flag(const std::string& name) {
    for (const FlagSpec& f : kFlags)
        if (name == f.name) return &f;
    return nullptr;
}

std::optional<bool> parse_bool(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s == "true" || s == "1" || s == "yes") return true;
    if (s == "false" || s == "0" || s == "no") return false;
    return std::nullopt;
}

PartialShape parse_shape(const std::string& text, const std::string& flag) {
    try {
        return PartialShape::parse(text);
    } catch (const Error& e) {
        throw UsageError(e.what_part(), flag, "write shapes like [1,3,224,224], with '?' for a dynamic dim");
    }
}

// Splits on commas outside brackets.
std::vector<std::string> split_top_level(const std::string& text, const std::string& flag) {
    std::vector<std::string> parts;
    std::string cur;
    int depth = 0;
    for (char c : text) {
        if (c == '[' || c == '(') ++depth;
        if (c == ']' || c == ')') --depth;
        if (depth < 0) throw UsageError("unbalanced brackets in '" + text + "'", flag);
        if (c == ',' && depth == 0) {
            parts.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (depth != 0) throw UsageError("unbalanced brackets in '" + text + "'", flag);
    parts.push_back(cur);
    return parts;
}

std::string trim(const std::string& s) {
    auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string brackets_of(std::string s) {  // "(1,2)" -> "[1,2]"
    if (!s.empty() && s.front() == '(' && s.back() == ')') s = "[" + s.substr(1, s.size() - 2) + "]";
    return s;
}

}  // namespace

std::vector<PartialShape> parse_shape_list(const std::string& text) {
    std::vector<PartialShape> shapes;
    std::string t = trim(text);
    if (t.empty()) throw UsageError("no shape given", "--input_shape", "write [1,3,224,224], or [] for a scalar");
    bool bracketed = !t.empty() && (t.front() == '[' || t.front() == '(');
    if (!bracketed) return {parse_shape(t, "--input_shape")};  // a single unbracketed shape: 1,3,224,224
    for (const std::string& part : split_top_level(t, "--input_shape")) {
        std::string p = brackets_of(trim(part));
        if (p.size() < 2 || p.front() != '[' || p.back() != ']')
            throw UsageError("malformed shape list '" + text + "'", "--input_shape",
                             "write one bracketed shape per input: [1,3,224,224],[1,10]");
        shapes.push_back(parse_shape(p, "--input_shape"));
    }
    return shapes;
}

// "[1 2 3]", "[1,2,3]" or "5": the values of a frozen input.
static std::vector<double> parse_values(const std::string& text, const std::string& flag) {
    std::string body = trim(text);
    if (!body.empty() && body.front() == '[') {
        if (body.back() != ']') throw UsageError("malformed values '" + text + "'", flag, "write [1 2 3] or [1,2,3]");
        body = body.substr(1, body.size() - 2);
    }
    std::replace(body.begin(), body.end(), ',', ' ');
    std::istringstream in(body);
    std::vector<double> values;
    std::string item;
    while (in >> item) {
        try {
            size_t used = 0;
            values.push_back(std::stod(item, &used));
            if (used != item.size()) throw std::invalid_argument(item);
        } catch (const std::exception&) {
            throw UsageError("'" + item + "' is not a number", flag, "write numbers like 1, -0.5, 2e3");
        }
        // Values are kept as doubles: an integer beyond 2^53 would silently become another.
        if (item.find_first_not_of("+-0123456789") == std::string::npos && std::abs(values.back()) >= 0x1p53)
            throw UsageError("'" + item + "' is an integer of 2^53 or more, which mo cannot freeze exactly", flag,
                             "freeze the input to a smaller value, or keep it an input");
    }
    if (values.empty()) throw UsageError("no values in '" + text + "'", flag, "write [1 2 3]");
    return values;
}

std::vector<InputSpec> parse_input_list(const std::string& text) {
    std::vector<InputSpec> specs;
    for (const std::string& raw : split_top_level(text, "--input")) {
        std::string part = trim(raw);
        InputSpec spec;
        if (auto arrow = part.find("->"); arrow != std::string::npos) {
            spec.value = parse_values(part.substr(arrow + 2), "--input");
            part = trim(part.substr(0, arrow));
        }
        auto open = part.find_first_of("[(");
        spec.name = trim(part.substr(0, open));
        if (open != std::string::npos) {
            std::string shape = brackets_of(part.substr(open));
            if (shape.back() != ']')
                throw UsageError("malformed input '" + part + "'", "--input", "write name[1,3,?,?]");
            spec.shape = parse_shape(shape, "--input");
        }
        if (spec.name.empty())
            throw UsageError("an input without a name in '" + text + "'", "--input",
                             "write names with optional shapes: a[1,3,?,?],b; use --input_shape for shapes by position");
        specs.push_back(std::move(spec));
    }
    return specs;
}

// A layout word: letters, each once ("nhwc", "nchw", "nc").
static std::string layout_word(std::string text, const std::string& flag) {
    text = trim(text);
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    if (text.empty() || text.find_first_not_of("abcdefghijklmnopqrstuvwxyz") != std::string::npos)
        throw UsageError("'" + text + "' is not a layout", flag, "write layouts as letters: nhwc, nchw");
    for (char ch : text)
        if (std::count(text.begin(), text.end(), ch) > 1)
            throw UsageError("layout '" + text + "' names an axis twice", flag, "write layouts like nhwc");
    return text;
}

// "nhwc->nchw", "x(nhwc->nchw),y(nchw)": for --layout (source->target, or target alone),
// --source_layout and --target_layout (one word).
static void parse_layouts(const std::string& text, const std::string& flag, std::vector<InputLayout>& out) {
    for (const std::string& raw : split_top_level(text, flag)) {
        std::string part = trim(raw), name;
        if (auto open = part.find('('); open != std::string::npos) {
            if (part.back() != ')') throw UsageError("malformed layout '" + part + "'", flag, "write x(nhwc->nchw)");
            name = trim(part.substr(0, open));
            part = part.substr(open + 1, part.size() - open - 2);
        }
        auto it = std::find_if(out.begin(), out.end(), [&](const InputLayout& l) { return l.name == name; });
        InputLayout& l = it != out.end() ? *it : out.emplace_back(InputLayout{name, "", ""});
        const auto arrow = part.find("->");
        if (flag == "--source_layout") l.source = layout_word(part, flag);
        else if (flag == "--target_layout" || arrow == std::string::npos) l.target = layout_word(part, flag);
        else l.source = layout_word(part.substr(0, arrow), flag), l.target = layout_word(part.substr(arrow + 2), flag);
    }
}

// "data[123,117,104],info[1]" or "[123,117,104],[1]" (by position).
static std::vector<InputChannelValues> parse_channel_values(const std::string& text, const std::string& flag) {
    std::vector<InputChannelValues> out;
    for (const std::string& raw : split_top_level(text, flag)) {
        const std::string part = trim(raw);
        const auto open = part.find('[');
        if (open == std::string::npos || part.back() != ']')
            throw UsageError("malformed values '" + part + "'", flag, "write name[1,2,3] or [1,2,3]");
        out.push_back({trim(part.substr(0, open)), parse_values(part.substr(open), flag)});
    }
    return out;
}

namespace {

using GivenFlags = std::map<std::string, std::string>;  // flag -> value, for duplicates and meta data

// --compress_to_fp16 [True|False]: a following True/False belongs to the flag; anything else is
// the next argument. Returns the value as written to the meta data.
std::string read_compress_flag(const std::vector<std::string>& args, size_t& i, std::optional<std::string> value,
                               ConversionOptions& o) {
    if (!value && i + 1 < args.size() && parse_bool(args[i + 1])) value = args[++i];
    auto b = value ? parse_bool(*value) : std::optional<bool>(true);
    if (!b) throw UsageError("--compress_to_fp16 takes True or False, not '" + *value + "'", "command line");
    o.compress_to_fp16 = *b;
    return *b ? "True" : "False";
}

// Reads every flag with its value; sets the action of --help, --version, --list_transformations,
// --list_ops.
GivenFlags read_flags(const std::vector<std::string>& args, CliRequest& req) {
    GivenFlags given;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "-h") {
            req.action = CliRequest::Action::Help;
            continue;
        }
        if (arg.rfind("--", 0) != 0)
            throw UsageError("unexpected argument '" + arg + "'", "command line", "flags start with --; see mo --help");
        std::string name = arg.substr(2);
        std::optional<std::string> value;
        if (auto eq = name.find('='); eq != std::string::npos) value = name.substr(eq + 1), name = name.substr(0, eq);
        const FlagSpec* flag = find_flag(name);
        if (!flag) throw UsageError("unknown flag '--" + name + "'", "command line", "see mo --help");
        if (given.count(name)) throw UsageError("--" + name + " given twice", "command line");
        if (flag->takes_value && !value) {
            if (i + 1 >= args.size()) throw UsageError("--" + name + " needs a value", "command line", "see mo --help");
            value = args[++i];
        }
        if (name == "compress_to_fp16") value = read_compress_flag(args, i, value, req.options);
        else if (!flag->takes_value && value) throw UsageError("--" + name + " takes no value", "command line");
        given[name] = value.value_or("");
    }
    if (given.count("help")) req.action = CliRequest::Action::Help;
    else if (given.count("version")) req.action = CliRequest::Action::Version;
    else if (given.count("list_transformations")) req.action = CliRequest::Action::ListTransformations;
    else if (given.count("list_ops")) req.action = CliRequest::Action::ListOps;
    return given;
}

const std::string* find_given(const GivenFlags& given, const char* name) {
    auto it = given.find(name);
    return it == given.end() ? nullptr : &it->second;
}

std::vector<std::string> list_value(const GivenFlags& given, const char* flag) {
    std::vector<std::string> items;
    if (auto v = find_given(given, flag))
        for (const std::string& item : split_top_level(*v, std::string("--") + flag))
            if (!trim(item).empty()) items.push_back(trim(item));
    return items;
}

// --input and --input_shape, merged by position.
void read_inputs(const GivenFlags& given, ConversionOptions& o) {
    if (auto v = find_given(given, "input")) o.inputs = parse_input_list(*v);
    auto v = find_given(given, "input_shape");
    if (!v) return;
    std::vector<PartialShape> shapes = parse_shape_list(*v);
    if (o.inputs.empty()) {
        for (auto& s : shapes) o.inputs.push_back(InputSpec{"", std::move(s)});
        return;
    }
    if (shapes.size() != o.inputs.size())
        throw UsageError("--input names " + std::to_string(o.inputs.size()) + " inputs but --input_shape gives " +
                             std::to_string(shapes.size()) + " shapes",
                         "command line", "give one shape per name, in the same order");
    for (size_t k = 0; k < shapes.size(); ++k) {
        if (o.inputs[k].shape)
            throw UsageError("input '" + o.inputs[k].name + "' has a shape in both --input and --input_shape",
                             "command line", "give the shape once");
        o.inputs[k].shape = std::move(shapes[k]);
    }
}

// A byte count: digits with an optional K, M or G (binary units), from 1 byte to 1 EiB.
int64_t parse_byte_size(const std::string& text, const std::string& flag) {
    const std::string hint = "give a number of bytes, optionally with K, M or G: 512M, 4G";
    size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    const std::string unit = text.substr(digits);
    const int shift = unit.empty() ? 0 : unit == "K" || unit == "k" ? 10 : unit == "M" || unit == "m" ? 20 : unit == "G" || unit == "g" ? 30 : -1;
    if (digits == 0 || digits > 12 || shift < 0) throw UsageError("cannot read '" + text + "' as a size", flag, hint);
    const int64_t value = std::stoll(text.substr(0, digits));
    if (value < 1 || value > (int64_t{1} << (60 - shift))) throw UsageError("'" + text + "' is out of range", flag, hint);
    return value << shift;
}

// MakeStateful or MakeStateful[param_res_names={'a':'b','c':'d'}] (quotes ' or ").
void parse_transform(const std::string& text, ConversionOptions& o) {
    const std::string hint = "use --transform MakeStateful or MakeStateful[param_res_names={'input':'output'}]";
    const size_t open = text.find('[');
    const std::string name = text.substr(0, open);
    if (name != "MakeStateful")
        throw UsageError("--transform supports MakeStateful only, not '" + name + "'", "command line", hint);
    o.make_stateful = true;
    if (open == std::string::npos) return;
    const std::string prefix = "param_res_names={";
    if (text.back() != ']' || text.compare(open + 1, prefix.size(), prefix) != 0 || text[text.size() - 2] != '}')
        throw UsageError("cannot read the arguments of '" + text + "'", "--transform", hint);
    const std::string body = text.substr(open + 1 + prefix.size(), text.size() - open - 3 - prefix.size());
    size_t i = 0;
    auto quoted = [&]() {
        while (i < body.size() && body[i] == ' ') ++i;
        if (i >= body.size() || (body[i] != '\'' && body[i] != '"'))
            throw UsageError("expected a quoted name at '" + body.substr(i) + "'", "--transform", hint);
        const char quote = body[i];
        const size_t end = body.find(quote, i + 1);
        if (end == std::string::npos) throw UsageError("unterminated name in '" + body + "'", "--transform", hint);
        std::string value = body.substr(i + 1, end - i - 1);
        i = end + 1;
        while (i < body.size() && body[i] == ' ') ++i;
        return value;
    };
    while (i < body.size()) {
        std::string param = quoted();
        if (i >= body.size() || body[i++] != ':') throw UsageError("expected ':' after '" + param + "'", "--transform", hint);
        std::string result = quoted();
        o.stateful_pairs.emplace_back(std::move(param), std::move(result));
        if (i < body.size() && body[i++] != ',') throw UsageError("expected ',' in '" + body + "'", "--transform", hint);
    }
    if (o.stateful_pairs.empty()) throw UsageError("param_res_names is empty", "--transform", hint);
}

// The flags that shape the conversion (and the plugins and configs --list_transformations uses).
void read_conversion_options(const GivenFlags& given, CliRequest& req) {
    ConversionOptions& o = req.options;
    if (auto v = find_given(given, "input_proto")) o.input_proto = *v;
    if (auto v = find_given(given, "input_model")) o.input_model = *v;
    else if (!o.input_proto.empty()) o.input_model = o.input_proto;  // a Caffe topology without weights
    else if (req.action == CliRequest::Action::Convert)
        throw UsageError("--input_model is required", "command line", "mo --input_model model.onnx --output_dir out");
    if (auto v = find_given(given, "output_dir")) o.output_dir = *v;
    if (auto v = find_given(given, "model_name")) o.model_name = *v;
    if (auto v = find_given(given, "framework")) o.framework = *v;
    else if (!o.input_proto.empty()) o.framework = "caffe";  // --input_proto is Caffe's flag
    if (given.count("output_format")) {
        o.output_formats = list_value(given, "output_format");
        for (const auto& f : o.output_formats)
            if ((f != "ir" && f != "onnx") || std::count(o.output_formats.begin(), o.output_formats.end(), f) > 1)
                throw UsageError("--output_format takes ir, onnx or ir,onnx, not '" + find_given(given, "output_format")[0] + "'",
                                 "command line");
        if (o.output_formats.empty()) throw UsageError("--output_format needs a value", "command line");
    }
    if (auto v = find_given(given, "log_level")) {
        try {
            req.log_level = parse_log_level(*v);
        } catch (const Error& e) {
            throw UsageError(e.what_part(), "--log_level", e.hint());
        }
    }
    if (auto v = find_given(given, "transformations_config")) o.transformations_config = *v;
    if (auto v = find_given(given, "transform")) parse_transform(*v, o);
    o.disable_nhwc_to_nchw = given.count("disable_nhwc_to_nchw") > 0;
    if (auto v = find_given(given, "mean_values")) o.mean_values = parse_channel_values(*v, "--mean_values");
    if (auto v = find_given(given, "scale_values")) o.scale_values = parse_channel_values(*v, "--scale_values");
    o.reverse_input_channels = given.count("reverse_input_channels") > 0;
    o.static_shape = given.count("static_shape") > 0;
    for (const char* flag : {"layout", "source_layout", "target_layout"})
        if (auto v = find_given(given, flag)) parse_layouts(*v, std::string("--") + flag, o.layouts);
    if (auto v = find_given(given, "batch")) {
        const auto n = parse_values(*v, "--batch");
        // Range first: casting a double beyond int64 is undefined.
        if (n.size() != 1 || !(n[0] >= 1 && n[0] <= 1e9) || n[0] != static_cast<double>(static_cast<int64_t>(n[0])))
            throw UsageError("--batch takes one positive integer, not '" + *v + "'", "command line");
        o.batch = static_cast<int64_t>(n[0]);
    }
    if (auto v = find_given(given, "max_constant_size")) o.max_constant_bytes = parse_byte_size(*v, "--max_constant_size");
    o.extensions = list_value(given, "extensions");
    if (given.count("extensions") && o.extensions.empty())
        throw UsageError("--extensions needs a value", "command line");
    read_inputs(given, o);
    o.outputs = list_value(given, "output");
    if (given.count("output") && o.outputs.empty())
        throw UsageError("--output needs at least one tensor name", "command line");
}

}  // namespace

CliRequest parse_command_line(const std::vector<std::string>& args) {
    CliRequest req;
    GivenFlags given = read_flags(args, req);
    if (req.action == CliRequest::Action::Help || req.action == CliRequest::Action::Version) return req;
    read_conversion_options(given, req);
    req.validation.inputs = list_value(given, "validate_inputs");
    req.validation.outputs = list_value(given, "validate_outputs");
    req.validation.enabled =
        given.count("validate") || !req.validation.inputs.empty() || !req.validation.outputs.empty();
    if (req.validation.enabled && req.options.make_stateful)
        throw UsageError("--validate cannot compare a stateful IR with the source model (their inputs differ)",
                         "command line", "validate the conversion without --transform MakeStateful");
    // Flags that do not change the IR stay out of its conversion parameters: validation, and
    // where the IR goes, which formats are written and how much is logged (the same model gives
    // the same bytes wherever and however it is converted).
    for (const auto& [k, v] : given)
        if (k.rfind("validate", 0) != 0 && k != "output_dir" && k != "log_level" && k != "output_format")
            req.options.cli_parameters.emplace_back(k, v);
    return req;
}

std::string usage_text() {
    std::string s =
        "usage: mo --input_model FILE [--output_dir DIR] [options]\n\n"
        "Converts a model to OpenVINO IR v11 (<model_name>.xml + <model_name>.bin) and/or ONNX (<model_name>.onnx).\n\n"
        "options (--flag value or --flag=value):\n";
    for (const FlagSpec& f : kFlags) {
        std::string left = std::string("  --") + f.name + (f.takes_value ? " " : "") + f.value_name;
        if (left.size() < 36) left.resize(36, ' ');
        else left += "\n" + std::string(36, ' ');
        s += left + f.help + "\n";
    }
    s += "\nexit codes: 0 success, 1 conversion error, 2 bad command line, 3 internal error\n";
    return s;
}

}  // namespace mo
