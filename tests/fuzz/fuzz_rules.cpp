// Rule files (core/rewrite/rule_parser): any text, parsed as the rule library and the rule editor
// parse it. A rule that parses must read back from its own ruleText (what journals record).
#include "fuzz_support.h"

#include "core/rewrite/rule_parser.h"

#include <cstdio>
#include <cstdlib>

using namespace graft;

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  fuzz::init(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const QString text = QString::fromUtf8(reinterpret_cast<const char*>(data), qsizetype(size));
  fuzz::asJob([&] {
    const auto parsed = core::rewrite::parseRule(text, QStringLiteral("fuzz.rule"));
    if (!parsed.ok()) return;
    const QString written = core::rewrite::ruleText(parsed.rule);
    const auto again = core::rewrite::parseRule(written, QStringLiteral("fuzz.rule"));
    if (!again.ok() || again.rule.id != parsed.rule.id || again.rule.pattern != parsed.rule.pattern ||
        again.rule.replacement != parsed.rule.replacement || again.rule.computed != parsed.rule.computed ||
        again.rule.conditions.size() != parsed.rule.conditions.size()) {
      std::fprintf(stderr, "fuzz_rules: ruleText does not read back to the same rule: %s\n---\n%s\n",
                   qPrintable(again.error.toString()), qPrintable(written));
      std::abort();
    }
  });
  return 0;
}
