#include "emit/xml_text.hpp"

#include <gtest/gtest.h>

#include <pugixml.hpp>

namespace mo {
namespace {

struct StringWriter final : pugi::xml_writer {
    void write(const void* data, size_t size) override { text.append(static_cast<const char*>(data), size); }
    std::string text;
};

// What pugixml prints for <e a="value"><t>value</t><empty /></e> at depth 2.
std::string pugixml_prints(const std::string& value) {
    pugi::xml_document doc;
    pugi::xml_node e = doc.append_child("e");
    e.append_attribute("a") = value.c_str();
    e.append_attribute("n") = "42";
    e.append_child("t").text().set(value.c_str());
    e.append_child("empty");
    StringWriter w;
    e.print(w, "\t", pugi::format_default, pugi::encoding_utf8, 2);
    return w.text;
}

std::string xml_text_writes(const std::string& value) {
    std::string out;
    XmlText x(out);
    x.open(2, "e");
    x.attribute("a", value);
    x.attribute("n", uint64_t{42});
    x.end_open();
    x.text_element(3, "t", value);
    x.open(3, "empty");
    x.end_empty();
    x.close(2, "e");
    return out;
}

TEST(XmlText, EveryByteIsEscapedAsPugixmlEscapesIt) {
    for (int c = 1; c < 256; ++c) {
        const std::string value = "a" + std::string(1, static_cast<char>(c)) + "b" + std::string(2, static_cast<char>(c));
        ASSERT_EQ(xml_text_writes(value), pugixml_prints(value)) << "byte " << c;
    }
}

TEST(XmlText, StringsAndTheFirstNulAsPugixmlPrintsThem) {
    for (const std::string value : {std::string(), std::string("plain"), std::string("a&b<c>d\"e'f"), std::string("\xc3\xa9t\xc3\xa9"),
                                    std::string("tab\there\nnew\rline"), std::string("cut\0here", 8), std::string("\0", 1)})
        EXPECT_EQ(xml_text_writes(value), pugixml_prints(value)) << value;
}

}  // namespace
}  // namespace mo
