// XML elements written straight as text, byte for byte as pugixml's printer writes the same
// elements (format_default: one element a line, "\t" indents, " />" closing an empty one;
// UTF-8 as given). The IR writer streams a million layers through it without building a
// document per layer; tests/emit/xml_text_test.cpp checks it against pugixml character by
// character.
#pragma once

#include <charconv>
#include <cstring>
#include <cstdint>
#include <string>
#include <string_view>

namespace mo {

class XmlText {
public:
    explicit XmlText(std::string& out) : out_(out) {}

    // "<name" at `depth` tabs; attributes follow, then end_open() or end_empty().
    void open(unsigned depth, std::string_view name) {
        Piece p(out_);
        p.indent(depth);
        p << '<' << name;
    }
    // ` name="value"`, the value escaped as pugixml escapes attribute values.
    void attribute(std::string_view name, std::string_view value) {
        if (plain_attribute(value)) {
            Piece p(out_);
            p << ' ' << name << std::string_view("=\"") << value << '"';
            return;
        }
        attribute_name(name);
        escape_attribute(value);
        out_ += '"';
    }
    void attribute(std::string_view name, uint64_t value) {
        Piece p(out_);
        p << ' ' << name << std::string_view("=\"");
        p.number(value);
        p << '"';
    }
    void end_open() { out_ += std::string_view(">\n"); }
    void end_empty() { out_ += std::string_view(" />\n"); }
    void close(unsigned depth, std::string_view name) {
        Piece p(out_);
        p.indent(depth);
        p << std::string_view("</") << name << std::string_view(">\n");
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
        Piece p(out_);
        p.indent(depth);
        p << '<' << name << '>';
        p.number(value);
        p << std::string_view("</") << name << std::string_view(">\n");
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
    // Text put together on the stack and appended to the output in one piece when it ends (or
    // fills): a million layers made tens of millions of small appends.
    class Piece {
    public:
        explicit Piece(std::string& out) : out_(out) {}
        ~Piece() { out_.append(buf_, n_); }
        Piece(const Piece&) = delete;
        Piece& operator=(const Piece&) = delete;
        Piece& operator<<(std::string_view s) {
            if (n_ + s.size() > sizeof buf_) spill();
            if (s.size() > sizeof buf_) return out_.append(s), *this;
            std::memcpy(buf_ + n_, s.data(), s.size());
            n_ += s.size();
            return *this;
        }
        Piece& operator<<(char c) {
            if (n_ == sizeof buf_) spill();
            buf_[n_++] = c;
            return *this;
        }
        template <typename Int>
        void number(Int value) {
            if (n_ + 24 > sizeof buf_) spill();
            n_ = static_cast<size_t>(std::to_chars(buf_ + n_, buf_ + sizeof buf_, value).ptr - buf_);
        }
        void indent(unsigned depth) {
            static constexpr std::string_view kTabs = "\t\t\t\t\t\t\t\t";
            for (; depth > kTabs.size(); depth -= static_cast<unsigned>(kTabs.size())) *this << kTabs;
            *this << kTabs.substr(0, depth);
        }

    private:
        void spill() {
            out_.append(buf_, n_);
            n_ = 0;
        }
        std::string& out_;
        char buf_[160];
        size_t n_ = 0;
    };
    // No character pugixml escapes in an attribute value (&, <, ", control characters) and no NUL.
    static bool plain_attribute(std::string_view value) {
        for (const char ch : value) {
            const auto c = static_cast<unsigned char>(ch);
            if (c < 32 || c == '&' || c == '<' || c == '"') return false;
        }
        return true;
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
