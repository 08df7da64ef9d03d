#include "emit/xml_text.hpp"

namespace mo {

void XmlText::escape(std::string_view value, bool attribute) {
    size_t plain = 0;  // start of the characters not yet written
    for (size_t i = 0; i < value.size(); ++i) {
        const auto c = static_cast<unsigned char>(value[i]);
        const char* entity = nullptr;
        switch (c) {
            case '&': entity = "&amp;"; break;
            case '<': entity = "&lt;"; break;
            case '>': entity = attribute ? nullptr : "&gt;"; break;
            case '"': entity = attribute ? "&quot;" : nullptr; break;
            default: break;
        }
        // Control characters become "&#NN;" (tab, line feed and carriage return stay in text).
        const bool control = c < 32 && (attribute || (c != '\t' && c != '\n' && c != '\r'));
        if (!entity && !control && c != 0) continue;
        out_.append(value.data() + plain, i - plain);
        if (c == 0) return;
        if (entity) {
            out_ += entity;
        } else {
            const char code[] = {'&', '#', static_cast<char>('0' + c / 10), static_cast<char>('0' + c % 10), ';'};
            out_.append(code, sizeof code);
        }
        plain = i + 1;
    }
    out_.append(value.data() + plain, value.size() - plain);
}

}  // namespace mo
