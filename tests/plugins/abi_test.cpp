// The plugin ABI is a promise: a plugin built against one set of installed headers works with
// every mo of the same MO_PLUGIN_ABI_VERSION. This test holds the layout of every type that
// crosses the boundary (sizes, and field offsets where fields are public) and a fingerprint of
// the installed headers' declarations (comments and spacing aside: a new virtual function, a
// changed signature). A change to either fails here until MO_PLUGIN_ABI_VERSION is raised and
// the recorded layout is updated: append a block for the new version, never edit an old one.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <mo/plugin.hpp>

#include "core/mapped_file.hpp"

namespace mo {
namespace {

// The layout of each version, as layout_text() prints it. Keep old blocks: they document what
// each version promised. (Version 1, the first published API, predates this record.)
const std::map<int, std::string> kRecordedLayouts = {
    {2, R"(
MoPluginInfo 32 abi_version@0 name@8 version@16 register_plugin@24
Registries 32
OpSchema 272 type@0 ir_type@32 ir_version@64 min_inputs@96 max_inputs@104 num_outputs@112 attrs@120 infer@144 eval@176 precision_sensitive_inputs@208 layout@232 origin@240
AttrSpec 80 name@0 kind@32 default_value@40
AttrValue 40
Extractor 176 framework@0 domain@32 op_type@64 since_version@96 until_version@104 fn@112 origin@144
Loader 184 framework@0 extensions@32 recognizes@56 load@88 description@120 origin@152
FrameworkInfo 120 framework@0 domain@32 type@64 opset@96 attributes@104
OutputData 120 type@0 shape@8 value@40 names@96
InputSpec 104 name@0 shape@32 value@72
InputChannelValues 56 name@0 values@32
InputLayout 96 name@0 source@32 target@64
ConversionOptions 496 input_model@0 input_proto@32 output_dir@64 model_name@96 output_formats@160 framework@128 inputs@184 outputs@208 compress_to_fp16@232 disable_nhwc_to_nchw@233 mean_values@240 scale_values@264 reverse_input_channels@288 batch@296 layouts@312 static_shape@336 max_constant_bytes@344 transformations_config@352 make_stateful@384 stateful_pairs@392 extensions@416 external_data_dir@440 cli_parameters@472
TransformOptions 192 outputs@0 inputs@24 mean_values@48 scale_values@72 reverse_input_channels@96 batch@104 layouts@120 static_shape@144 disable_nhwc_to_nchw@145 compress_to_fp16@146 max_constant_bytes@152 make_stateful@160 stateful_pairs@168
TransformContext 192 options@0
BodyInput 72 kind@0 external@8 parameter@16 result@24 axis@32 start@40 stride@48 part_size@56 end@64
BodyOutput 64 kind@0 external@8 result@16 axis@24 start@32 stride@40 part_size@48 end@56
Body 88 role@0 graph@32 inputs@40 outputs@64
ConfigEntry 176 file@0 index@32 id@40 match_kind@72 instances@104 inputs@120 outputs@136 custom_attributes@152 include_inputs_to_sub_graph@168 include_outputs_to_sub_graph@169
SubgraphMatch 104 instance@0 nodes@32 inputs@56 outputs@80
Pattern::NodeSpec 88 name@0 types@32 predicates@56 commutative@80 any_output@81
Pattern::EdgeSpec 32 from@0 to@8 out_port@16 in_port@24
detail::NodeCore 24 graph@0 id@8 op@16
Node 8
OutPort 16
InPort 16
Graph 264 source_path@0 source_framework@32 source_layout@64 max_constant_bytes@96 keep_alive@104
InferContext 8
Dimension 16
PartialShape 32
Tensor 48
OwnedBuffer 56
ViewBuffer 56
DerivedBuffer 32
MappedFile 56
Error 112
EvalBudget 32
ExtractContext 72
OpRegistry 80
ExtractorRegistry 88
LoaderRegistry 56
TransformRegistry 152
Pattern 104
PatternMatch 96
Transformation 8
OpTransformation 8
PatternTransformation 8
ConfiguredTransformation 32
headers c105de97874a6f5c
)"},
    // 3: the headers are installed as <mo/core/...> (include/ is the include directory).
    {3, R"(
MoPluginInfo 32 abi_version@0 name@8 version@16 register_plugin@24
Registries 32
OpSchema 272 type@0 ir_type@32 ir_version@64 min_inputs@96 max_inputs@104 num_outputs@112 attrs@120 infer@144 eval@176 precision_sensitive_inputs@208 layout@232 origin@240
AttrSpec 80 name@0 kind@32 default_value@40
AttrValue 40
Extractor 176 framework@0 domain@32 op_type@64 since_version@96 until_version@104 fn@112 origin@144
Loader 184 framework@0 extensions@32 recognizes@56 load@88 description@120 origin@152
FrameworkInfo 120 framework@0 domain@32 type@64 opset@96 attributes@104
OutputData 72 type@0 shape@8 value@40 names@48
InputSpec 104 name@0 shape@32 value@72
InputChannelValues 56 name@0 values@32
InputLayout 96 name@0 source@32 target@64
ConversionOptions 496 input_model@0 input_proto@32 output_dir@64 model_name@96 output_formats@160 framework@128 inputs@184 outputs@208 compress_to_fp16@232 disable_nhwc_to_nchw@233 mean_values@240 scale_values@264 reverse_input_channels@288 batch@296 layouts@312 static_shape@336 max_constant_bytes@344 transformations_config@352 make_stateful@384 stateful_pairs@392 extensions@416 external_data_dir@440 cli_parameters@472
TransformOptions 192 outputs@0 inputs@24 mean_values@48 scale_values@72 reverse_input_channels@96 batch@104 layouts@120 static_shape@144 disable_nhwc_to_nchw@145 compress_to_fp16@146 max_constant_bytes@152 make_stateful@160 stateful_pairs@168
TransformContext 192 options@0
BodyInput 72 kind@0 external@8 parameter@16 result@24 axis@32 start@40 stride@48 part_size@56 end@64
BodyOutput 64 kind@0 external@8 result@16 axis@24 start@32 stride@40 part_size@48 end@56
Body 88 role@0 graph@32 inputs@40 outputs@64
ConfigEntry 176 file@0 index@32 id@40 match_kind@72 instances@104 inputs@120 outputs@136 custom_attributes@152 include_inputs_to_sub_graph@168 include_outputs_to_sub_graph@169
SubgraphMatch 104 instance@0 nodes@32 inputs@56 outputs@80
Pattern::NodeSpec 88 name@0 types@32 predicates@56 commutative@80 any_output@81
Pattern::EdgeSpec 32 from@0 to@8 out_port@16 in_port@24
detail::NodeCore 24 graph@0 id@8 op@16
Node 8
OutPort 16
InPort 16
Graph 264 source_path@0 source_framework@32 source_layout@64 max_constant_bytes@96 keep_alive@104
InferContext 8
Dimension 16
PartialShape 32
Tensor 48
OwnedBuffer 56
ViewBuffer 56
DerivedBuffer 32
MappedFile 56
Error 112
EvalBudget 32
ExtractContext 72
OpRegistry 80
ExtractorRegistry 88
LoaderRegistry 56
TransformRegistry 152
Pattern 104
PatternMatch 96
Transformation 8
OpTransformation 8
PatternTransformation 8
ConfiguredTransformation 32
headers 2586b95c238debdd
)"},
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"  // offsets of public fields of non-standard-layout types
#define MO_ABI_TYPE(T) os << "\n" #T " " << sizeof(T)
#define MO_ABI_FIELD(T, f) os << " " #f "@" << offsetof(T, f)

std::string layout_text() {
    std::ostringstream os;
    MO_ABI_TYPE(MoPluginInfo);
    MO_ABI_FIELD(MoPluginInfo, abi_version);
    MO_ABI_FIELD(MoPluginInfo, name);
    MO_ABI_FIELD(MoPluginInfo, version);
    MO_ABI_FIELD(MoPluginInfo, register_plugin);
    MO_ABI_TYPE(Registries);
    MO_ABI_TYPE(OpSchema);
    MO_ABI_FIELD(OpSchema, type);
    MO_ABI_FIELD(OpSchema, ir_type);
    MO_ABI_FIELD(OpSchema, ir_version);
    MO_ABI_FIELD(OpSchema, min_inputs);
    MO_ABI_FIELD(OpSchema, max_inputs);
    MO_ABI_FIELD(OpSchema, num_outputs);
    MO_ABI_FIELD(OpSchema, attrs);
    MO_ABI_FIELD(OpSchema, infer);
    MO_ABI_FIELD(OpSchema, eval);
    MO_ABI_FIELD(OpSchema, precision_sensitive_inputs);
    MO_ABI_FIELD(OpSchema, layout);
    MO_ABI_FIELD(OpSchema, origin);
    MO_ABI_TYPE(AttrSpec);
    MO_ABI_FIELD(AttrSpec, name);
    MO_ABI_FIELD(AttrSpec, kind);
    MO_ABI_FIELD(AttrSpec, default_value);
    MO_ABI_TYPE(AttrValue);
    MO_ABI_TYPE(Extractor);
    MO_ABI_FIELD(Extractor, framework);
    MO_ABI_FIELD(Extractor, domain);
    MO_ABI_FIELD(Extractor, op_type);
    MO_ABI_FIELD(Extractor, since_version);
    MO_ABI_FIELD(Extractor, until_version);
    MO_ABI_FIELD(Extractor, fn);
    MO_ABI_FIELD(Extractor, origin);
    MO_ABI_TYPE(Loader);
    MO_ABI_FIELD(Loader, framework);
    MO_ABI_FIELD(Loader, extensions);
    MO_ABI_FIELD(Loader, recognizes);
    MO_ABI_FIELD(Loader, load);
    MO_ABI_FIELD(Loader, description);
    MO_ABI_FIELD(Loader, origin);
    MO_ABI_TYPE(FrameworkInfo);
    MO_ABI_FIELD(FrameworkInfo, framework);
    MO_ABI_FIELD(FrameworkInfo, domain);
    MO_ABI_FIELD(FrameworkInfo, type);
    MO_ABI_FIELD(FrameworkInfo, opset);
    MO_ABI_FIELD(FrameworkInfo, attributes);
    MO_ABI_TYPE(OutputData);
    MO_ABI_FIELD(OutputData, type);
    MO_ABI_FIELD(OutputData, shape);
    MO_ABI_FIELD(OutputData, value);
    MO_ABI_FIELD(OutputData, names);
    MO_ABI_TYPE(InputSpec);
    MO_ABI_FIELD(InputSpec, name);
    MO_ABI_FIELD(InputSpec, shape);
    MO_ABI_FIELD(InputSpec, value);
    MO_ABI_TYPE(InputChannelValues);
    MO_ABI_FIELD(InputChannelValues, name);
    MO_ABI_FIELD(InputChannelValues, values);
    MO_ABI_TYPE(InputLayout);
    MO_ABI_FIELD(InputLayout, name);
    MO_ABI_FIELD(InputLayout, source);
    MO_ABI_FIELD(InputLayout, target);
    MO_ABI_TYPE(ConversionOptions);
    MO_ABI_FIELD(ConversionOptions, input_model);
    MO_ABI_FIELD(ConversionOptions, input_proto);
    MO_ABI_FIELD(ConversionOptions, output_dir);
    MO_ABI_FIELD(ConversionOptions, model_name);
    MO_ABI_FIELD(ConversionOptions, output_formats);
    MO_ABI_FIELD(ConversionOptions, framework);
    MO_ABI_FIELD(ConversionOptions, inputs);
    MO_ABI_FIELD(ConversionOptions, outputs);
    MO_ABI_FIELD(ConversionOptions, compress_to_fp16);
    MO_ABI_FIELD(ConversionOptions, disable_nhwc_to_nchw);
    MO_ABI_FIELD(ConversionOptions, mean_values);
    MO_ABI_FIELD(ConversionOptions, scale_values);
    MO_ABI_FIELD(ConversionOptions, reverse_input_channels);
    MO_ABI_FIELD(ConversionOptions, batch);
    MO_ABI_FIELD(ConversionOptions, layouts);
    MO_ABI_FIELD(ConversionOptions, static_shape);
    MO_ABI_FIELD(ConversionOptions, max_constant_bytes);
    MO_ABI_FIELD(ConversionOptions, transformations_config);
    MO_ABI_FIELD(ConversionOptions, make_stateful);
    MO_ABI_FIELD(ConversionOptions, stateful_pairs);
    MO_ABI_FIELD(ConversionOptions, extensions);
    MO_ABI_FIELD(ConversionOptions, external_data_dir);
    MO_ABI_FIELD(ConversionOptions, cli_parameters);
    MO_ABI_TYPE(TransformOptions);
    MO_ABI_FIELD(TransformOptions, outputs);
    MO_ABI_FIELD(TransformOptions, inputs);
    MO_ABI_FIELD(TransformOptions, mean_values);
    MO_ABI_FIELD(TransformOptions, scale_values);
    MO_ABI_FIELD(TransformOptions, reverse_input_channels);
    MO_ABI_FIELD(TransformOptions, batch);
    MO_ABI_FIELD(TransformOptions, layouts);
    MO_ABI_FIELD(TransformOptions, static_shape);
    MO_ABI_FIELD(TransformOptions, disable_nhwc_to_nchw);
    MO_ABI_FIELD(TransformOptions, compress_to_fp16);
    MO_ABI_FIELD(TransformOptions, max_constant_bytes);
    MO_ABI_FIELD(TransformOptions, make_stateful);
    MO_ABI_FIELD(TransformOptions, stateful_pairs);
    MO_ABI_TYPE(TransformContext);
    MO_ABI_FIELD(TransformContext, options);
    MO_ABI_TYPE(BodyInput);
    MO_ABI_FIELD(BodyInput, kind);
    MO_ABI_FIELD(BodyInput, external);
    MO_ABI_FIELD(BodyInput, parameter);
    MO_ABI_FIELD(BodyInput, result);
    MO_ABI_FIELD(BodyInput, axis);
    MO_ABI_FIELD(BodyInput, start);
    MO_ABI_FIELD(BodyInput, stride);
    MO_ABI_FIELD(BodyInput, part_size);
    MO_ABI_FIELD(BodyInput, end);
    MO_ABI_TYPE(BodyOutput);
    MO_ABI_FIELD(BodyOutput, kind);
    MO_ABI_FIELD(BodyOutput, external);
    MO_ABI_FIELD(BodyOutput, result);
    MO_ABI_FIELD(BodyOutput, axis);
    MO_ABI_FIELD(BodyOutput, start);
    MO_ABI_FIELD(BodyOutput, stride);
    MO_ABI_FIELD(BodyOutput, part_size);
    MO_ABI_FIELD(BodyOutput, end);
    MO_ABI_TYPE(Body);
    MO_ABI_FIELD(Body, role);
    MO_ABI_FIELD(Body, graph);
    MO_ABI_FIELD(Body, inputs);
    MO_ABI_FIELD(Body, outputs);
    MO_ABI_TYPE(ConfigEntry);
    MO_ABI_FIELD(ConfigEntry, file);
    MO_ABI_FIELD(ConfigEntry, index);
    MO_ABI_FIELD(ConfigEntry, id);
    MO_ABI_FIELD(ConfigEntry, match_kind);
    MO_ABI_FIELD(ConfigEntry, instances);
    MO_ABI_FIELD(ConfigEntry, inputs);
    MO_ABI_FIELD(ConfigEntry, outputs);
    MO_ABI_FIELD(ConfigEntry, custom_attributes);
    MO_ABI_FIELD(ConfigEntry, include_inputs_to_sub_graph);
    MO_ABI_FIELD(ConfigEntry, include_outputs_to_sub_graph);
    MO_ABI_TYPE(SubgraphMatch);
    MO_ABI_FIELD(SubgraphMatch, instance);
    MO_ABI_FIELD(SubgraphMatch, nodes);
    MO_ABI_FIELD(SubgraphMatch, inputs);
    MO_ABI_FIELD(SubgraphMatch, outputs);
    MO_ABI_TYPE(Pattern::NodeSpec);
    MO_ABI_FIELD(Pattern::NodeSpec, name);
    MO_ABI_FIELD(Pattern::NodeSpec, types);
    MO_ABI_FIELD(Pattern::NodeSpec, predicates);
    MO_ABI_FIELD(Pattern::NodeSpec, commutative);
    MO_ABI_FIELD(Pattern::NodeSpec, any_output);
    MO_ABI_TYPE(Pattern::EdgeSpec);
    MO_ABI_FIELD(Pattern::EdgeSpec, from);
    MO_ABI_FIELD(Pattern::EdgeSpec, to);
    MO_ABI_FIELD(Pattern::EdgeSpec, out_port);
    MO_ABI_FIELD(Pattern::EdgeSpec, in_port);
    // Node's inline accessors (graph(), id(), op()) read these in the plugin's code.
    MO_ABI_TYPE(detail::NodeCore);
    MO_ABI_FIELD(detail::NodeCore, graph);
    MO_ABI_FIELD(detail::NodeCore, id);
    MO_ABI_FIELD(detail::NodeCore, op);
    // Classes whose fields are private: their size.
    MO_ABI_TYPE(Node);
    MO_ABI_TYPE(OutPort);
    MO_ABI_TYPE(InPort);
    MO_ABI_TYPE(Graph);
    MO_ABI_FIELD(Graph, source_path);
    MO_ABI_FIELD(Graph, source_framework);
    MO_ABI_FIELD(Graph, source_layout);
    MO_ABI_FIELD(Graph, max_constant_bytes);
    MO_ABI_FIELD(Graph, keep_alive);
    MO_ABI_TYPE(InferContext);
    MO_ABI_TYPE(Dimension);
    MO_ABI_TYPE(PartialShape);
    MO_ABI_TYPE(Tensor);
    MO_ABI_TYPE(OwnedBuffer);
    MO_ABI_TYPE(ViewBuffer);
    MO_ABI_TYPE(DerivedBuffer);
    MO_ABI_TYPE(MappedFile);
    MO_ABI_TYPE(Error);
    MO_ABI_TYPE(EvalBudget);
    MO_ABI_TYPE(ExtractContext);
    MO_ABI_TYPE(OpRegistry);
    MO_ABI_TYPE(ExtractorRegistry);
    MO_ABI_TYPE(LoaderRegistry);
    MO_ABI_TYPE(TransformRegistry);
    MO_ABI_TYPE(Pattern);
    MO_ABI_TYPE(PatternMatch);
    MO_ABI_TYPE(Transformation);
    MO_ABI_TYPE(OpTransformation);
    MO_ABI_TYPE(PatternTransformation);
    MO_ABI_TYPE(ConfiguredTransformation);
    return os.str() + "\n";
}

#undef MO_ABI_FIELD
#undef MO_ABI_TYPE
#pragma GCC diagnostic pop

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    EXPECT_TRUE(in) << path;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string without_comments(std::string text) {
    text = std::regex_replace(text, std::regex(R"(//[^\n]*)"), "");
    return std::regex_replace(text, std::regex(R"(/\*[\s\S]*?\*/)"), "");
}

// The installed headers: cmake/public_headers.cmake's MO_PUBLIC_HEADERS and include/mo/plugin.hpp.
std::vector<std::string> installed_headers() {
    const std::string install = read_file(std::string(MO_SOURCE_DIR) + "/cmake/public_headers.cmake");
    std::smatch list;
    EXPECT_TRUE(std::regex_search(install, list, std::regex(R"(set\(MO_PUBLIC_HEADERS([^)]*)\))")));
    std::vector<std::string> headers{"include/mo/plugin.hpp"};
    std::istringstream names(list[1].str());
    for (std::string name; names >> name;) headers.push_back(name);
    return headers;
}

// The installed headers, comments removed and spacing collapsed, hashed with 64-bit FNV-1a.
std::string headers_fingerprint() {
    const std::string root = MO_SOURCE_DIR;
    const std::vector<std::string> headers = installed_headers();
    uint64_t hash = 14695981039346656037ull;
    for (const std::string& header : headers) {
        std::string text = without_comments(read_file(root + "/" + header));
        text = std::regex_replace(text, std::regex(R"(\s+)"), " ");
        for (char c : header + ":" + text) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
    std::ostringstream os;
    os << std::hex << hash;
    return "headers " + os.str();
}

TEST(PluginAbi, TheLayoutOfThePublicTypesIsTheOneItsVersionRecorded) {
    const std::string actual = layout_text() + headers_fingerprint() + "\n";
    auto recorded = kRecordedLayouts.find(MO_PLUGIN_ABI_VERSION);
    ASSERT_NE(recorded, kRecordedLayouts.end())
        << "no layout recorded for MO_PLUGIN_ABI_VERSION " << MO_PLUGIN_ABI_VERSION << "; record this one:\n"
        << actual;
    EXPECT_EQ(recorded->second, actual)
        << "the public types or headers changed: raise MO_PLUGIN_ABI_VERSION (include/mo/plugin.hpp) and record the new "
           "layout under the new version in tests/plugins/abi_test.cpp (keep the old block)";
    for (const auto& [version, layout] : kRecordedLayouts)
        if (version != MO_PLUGIN_ABI_VERSION) EXPECT_NE(layout, actual) << "version " << version << " has this layout already";
}

// MO_API is the plugin API's mark: a header that is not installed exports with MO_TOOL_API.
TEST(PluginAbi, OnlyInstalledHeadersExportThePluginApi) {
    const std::filesystem::path root = MO_SOURCE_DIR;
    std::set<std::string> installed;
    for (const std::string& header : installed_headers()) installed.insert(header);
    const std::regex mark(R"(\bMO_API\b)");
    size_t scanned = 0;
    for (const char* dir : {"core", "driver", "emit", "extractors", "include", "loaders", "ops", "transforms", "validate"})
        for (const auto& entry : std::filesystem::recursive_directory_iterator(root / dir)) {
            const std::string ext = entry.path().extension().string();
            if (ext != ".hpp" && ext != ".cpp") continue;
            ++scanned;
            const std::string name = std::filesystem::relative(entry.path(), root).string();
            if (name == "core/api.hpp" || installed.count(name)) continue;
            EXPECT_FALSE(std::regex_search(without_comments(read_file(entry.path().string())), mark))
                << name << " is not installed but marks declarations MO_API: use MO_TOOL_API (core/tool_api.hpp)";
        }
    EXPECT_GT(scanned, 300u);
}

}  // namespace
}  // namespace mo
