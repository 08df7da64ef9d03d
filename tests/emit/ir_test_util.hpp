// Helpers shared by the emitter and end-to-end tests: scratch directories, file contents,
// a canonical text form of XML elements for structural comparison, and a conversion read back.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "core/graph.hpp"

namespace mo::test {

// A fresh empty directory under the system temp directory, removed when the object dies.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& tag);
    ~ScratchDir();
    const std::filesystem::path& path() const { return path_; }
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    std::vector<std::string> entries() const;  // sorted file names

private:
    std::filesystem::path path_;
};

std::string read_bytes(const std::string& path);
// One line per element: "name a=v b=w" (attributes in document order), children indented,
// trimmed text appended. Whitespace between elements does not matter.
std::string canonical_xml(const pugi::xml_node& node, int depth = 0);
// Layer types in id order.
std::vector<std::string> layer_types(const pugi::xml_document& doc);
// The n-th layer of this type (empty node when absent).
pugi::xml_node layer_of_type(const pugi::xml_document& doc, const std::string& type, size_t n = 0);
pugi::xml_node layer_by_id(const pugi::xml_document& doc, const std::string& id);
// The layer feeding input port `port` of `layer` (empty node when none).
pugi::xml_node producer_of(const pugi::xml_document& doc, const pugi::xml_node& layer, size_t port);
// Everything wrong with the edges: ports that do not exist, input ports with no edge or two,
// and edges whose two ends disagree on precision or dims. Empty when consistent.
std::vector<std::string> edge_problems(const pugi::xml_document& doc);
// The bytes of a Const layer inside the BIN contents.
std::string const_bytes(const pugi::xml_node& layer, const std::string& bin);
// Runs every node's shape inference in topological order.
void infer_all(Graph& g);
// Converts the model file with mo's library into `out` and reads the written IR back with the
// built-in ops.
std::unique_ptr<Graph> convert_to_ir(const std::string& model, const ScratchDir& out, bool compress_to_fp16);

}  // namespace mo::test
