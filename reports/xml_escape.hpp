#pragma once
// Escaping for the XML and HTML the reports write. Case texts, kernel messages and machine
// names are arbitrary bytes; a report that a CI parser or a browser rejects hides the very
// failure it was written for, so every character XML 1.0 forbids (C0 controls but tab, line
// feed and carriage return; U+FFFE, U+FFFF; surrogates; malformed UTF-8) becomes U+FFFD.
#include <string>
#include <string_view>

namespace peconform {

// Text content: escapes &, < and >, and leaves quotes as they are, so that a replay command
// stays readable in the raw file.
std::string xml_text(std::string_view text);
// Attribute values (in double or single quotes): as xml_text, and quotes, tab, line feed and
// carriage return as references, which attribute-value normalisation would otherwise turn
// into spaces.
std::string xml_attribute(std::string_view text);

}  // namespace peconform
