#include "transforms/config/transformations_config.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mo {

namespace fs = std::filesystem;

namespace {

constexpr const char* kHint = "see docs/transformations-config.md for the format";

// "line L, column C" of a byte offset (1-based, as editors count).
std::string line_and_column(const std::string& text, size_t offset) {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') ++line, column = 1;
        else ++column;
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

[[noreturn]] void bad_field(const std::string& path, size_t index, const std::string& field, const std::string& want) {
    throw Error("entry " + std::to_string(index) + ": field '" + field + "' must be " + want, path, kHint);
}

bool is_string_list(const nlohmann::json& j) {
    if (!j.is_array()) return false;
    for (const auto& v : j)
        if (!v.is_string()) return false;
    return true;
}

bool is_port_ref(const nlohmann::json& j) {
    return j.is_object() && j.contains("node") && j["node"].is_string() && j.contains("port") &&
           j["port"].is_number_unsigned();
}

void check_instances(const nlohmann::json& e, ConfigEntry& entry, const std::string& path) {
    if (entry.match_kind == "general") return;
    if (!e.contains("instances")) bad_field(path, entry.index, "instances", "given for match_kind " + entry.match_kind);
    entry.instances = e["instances"];
    if (entry.match_kind == "scope" && !is_string_list(entry.instances))
        bad_field(path, entry.index, "instances", "a list of node-name scopes (strings) for match_kind scope");
    if (entry.match_kind == "points") {
        const auto& i = entry.instances;
        if (!i.is_object() || !i.contains("start_points") || !is_string_list(i["start_points"]) ||
            !i.contains("end_points") || !is_string_list(i["end_points"]) || i["start_points"].empty())
            bad_field(path, entry.index, "instances",
                      "{\"start_points\": [names], \"end_points\": [names]} with at least one start point, for "
                      "match_kind points");
    }
}

void check_boundary(const nlohmann::json& e, ConfigEntry& entry, const std::string& path) {
    entry.inputs = e.value("inputs", nlohmann::json::array());
    entry.outputs = e.value("outputs", nlohmann::json::array());
    bool inputs_ok = entry.inputs.is_array();
    for (const auto& list : entry.inputs) {
        inputs_ok = inputs_ok && list.is_array() && !list.empty();
        if (inputs_ok)
            for (const auto& ref : list) inputs_ok = inputs_ok && is_port_ref(ref);
    }
    if (!inputs_ok) bad_field(path, entry.index, "inputs", "a list of lists of {\"node\": regex, \"port\": number}");
    bool outputs_ok = entry.outputs.is_array();
    for (const auto& ref : entry.outputs) outputs_ok = outputs_ok && is_port_ref(ref);
    if (!outputs_ok) bad_field(path, entry.index, "outputs", "a list of {\"node\": regex, \"port\": number}");
}

ConfigEntry parse_entry(const nlohmann::json& e, size_t index, const std::string& path) {
    ConfigEntry entry;
    entry.file = path;
    entry.index = index;
    if (!e.is_object()) throw Error("entry " + std::to_string(index) + " is not a JSON object", path, kHint);
    if (!e.contains("id") || !e["id"].is_string() || e["id"].get<std::string>().empty())
        bad_field(path, index, "id", "a non-empty string");
    entry.id = e["id"];
    if (!e.contains("match_kind") || !e["match_kind"].is_string()) bad_field(path, index, "match_kind", "a string");
    entry.match_kind = e["match_kind"];
    if (entry.match_kind != "scope" && entry.match_kind != "points" && entry.match_kind != "general")
        bad_field(path, index, "match_kind", "one of scope, points, general");
    check_instances(e, entry, path);
    check_boundary(e, entry, path);
    entry.custom_attributes = e.value("custom_attributes", nlohmann::json::object());
    if (!entry.custom_attributes.is_object()) bad_field(path, index, "custom_attributes", "a JSON object");
    for (const char* flag : {"include_inputs_to_sub_graph", "include_outputs_to_sub_graph"})
        if (e.contains(flag) && !e[flag].is_boolean()) bad_field(path, index, flag, "true or false");
    entry.include_inputs_to_sub_graph = e.value("include_inputs_to_sub_graph", true);
    entry.include_outputs_to_sub_graph = e.value("include_outputs_to_sub_graph", true);
    return entry;
}

}  // namespace

std::vector<ConfigEntry> parse_transformations_config(const std::string& text, const std::string& path) {
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        std::string what = e.what();
        what = what.substr(what.find(':') == std::string::npos ? 0 : what.rfind(": ") + 2);
        throw Error("the transformations config is not valid JSON (" + line_and_column(text, e.byte ? e.byte - 1 : 0) +
                        "): " + what,
                    path, kHint);
    } catch (const nlohmann::json::exception& e) {  // e.g. a number beyond double's range (out_of_range)
        std::string what = e.what();
        what = what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2);
        throw Error("the transformations config is not valid JSON: " + what, path, kHint);
    }
    if (!doc.is_array()) throw Error("the transformations config must be a JSON array of entries", path, kHint);
    std::vector<ConfigEntry> entries;
    for (size_t i = 0; i < doc.size(); ++i) entries.push_back(parse_entry(doc[i], i, path));
    return entries;
}

void apply_transformations_config(TransformRegistry& registry, const std::string& path) {
    // Checked before reading: a device or a pipe (/dev/zero) would be read until memory runs out.
    constexpr uintmax_t kMaxBytes = uintmax_t{64} << 20;
    std::error_code ec;
    if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))
        throw Error("cannot read the transformations config: it is not a regular file", path,
                    "pass a JSON file to --transformations_config");
    if (const uintmax_t size = fs::file_size(path, ec); !ec && size > kMaxBytes)
        throw Error("the transformations config is " + std::to_string(size) + " bytes, more than the 64 MiB a config may have",
                    path, "check the path given to --transformations_config: a config is a short JSON list of entries");
    std::ifstream file(path);
    if (!file) throw Error("cannot read the transformations config", path, "check the path given to --transformations_config");
    std::stringstream text;
    text << file.rdbuf();
    for (ConfigEntry& entry : parse_transformations_config(text.str(), path)) {
        ConfiguredTransformation* target = nullptr;
        std::string known;
        for (Transformation* t : registry.all()) {
            auto* configured = dynamic_cast<ConfiguredTransformation*>(t);
            if (!configured) continue;
            known += (known.empty() ? "" : ", ") + t->id();
            if (t->id() == entry.id) target = configured;
        }
        if (!target) {
            throw Error(entry.describe() + ": no configured transformation has this id", path,
                        "known configured transformations: " + (known.empty() ? std::string("none") : known) +
                            " (plugins add more with --extensions)");
        }
        target->add_entry(std::move(entry));
    }
}

}  // namespace mo
