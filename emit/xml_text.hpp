// XML elements written straight as text, byte for byte as pugixml's printer writes the same
// elements (format_default: one element a line, "\t" indents, " />" closing an empty one;
// UTF-8 as given). The IR writer streams a million layers through it without building a
// document per layer; tests/emit/xml_text_test.cpp checks it against pugixml character by
// character.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace mo {

class XmlText {
public:
    explicit XmlText(std::string& out) : out_(out) {}

    // "<name" at `depth` tabs; attributes follow, then end_open() or end_empty().
    void open(unsigned depth, std::string_view name) {
        indent(depth);
        out_ += '<';
        out_ += name;
    }
    // ` name="value"`, the value escaped as pugixml escapes attribute values.
    void attribute(std::string_view name, std::string_view value) {
        attribute_name(name);
        escape_attribute(value);
        out_ += '"';
    }
    void attribute(std::string_view name, uint64_t value) {
        attribute_name(name);
        number(value);
        out_ += '"';
    }
    void end_open() { out_ += std::string_view(">\n"); }
    void end_empty() { out_ += std::string_view(" />\n"); }
    void close(unsigned depth, std::string_view name) {
        indent(depth);
        out_ += std::string_view("</");
        out_ += name;
        out_ += std::string_view(">\n");
    }
    // <name>text</name> on a line of its own.
    void text_element(unsigned depth, std::string_view name, std::string_view text) {
        open(depth, name);
        out_ += '>';
        escape_text(text);
        out_ += std::string_view("</");
        out_ += name;
        out_ += std::string_view(">\n");
    }
    // <name>number</name> on a line of its own.
    template <typename Int>
    void number_element(unsigned depth, std::string_view name, Int value) {
        open(depth, name);
        out_ += '>';
        number(value);
        out_ += std::string_view("</");
        out_ += name;
        out_ += std::string_view(">\n");
    }
    template <typename Int>
    void number(Int value) {
        char digits[24];
        out_.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
    }

    // pugixml's escaping; a value ends at its first NUL, as the C string pugixml stores does.
    void escape_attribute(std::string_view value) { escape(value, true); }
    void escape_text(std::string_view value) { escape(value, false); }

private:
    void indent(unsigned depth) {
        static constexpr std::string_view kTabs = "\t\t\t\t\t\t\t\t";
        for (; depth > kTabs.size(); depth -= static_cast<unsigned>(kTabs.size())) out_ += kTabs;
        out_ += kTabs.substr(0, depth);
    }
    void attribute_name(std::string_view name) {
        out_ += ' ';
        out_ += name;
        out_ += std::string_view("=\"");
    }
    void escape(std::string_view value, bool attribute);

    std::string& out_;
};

}  // namespace mo
