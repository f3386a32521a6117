#include "app/cli/commands.h"
#include "core/edit/graph_diff.h"
#include "core/model/document.h"

namespace graft::cli {

Command diffCommand() {
  Command c{QStringLiteral("diff"),
            QStringLiteral("Show what differs between two models, node by node (exit 1 when they differ)."),
            QStringLiteral("A B [--json]"), {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("A"), QStringLiteral("A .pt or .pt2 file (or --sample NAME)."));
    parser.addPositionalArgument(QStringLiteral("B"), QStringLiteral("The model to compare it with."));
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    auto a = openModel(parser, 0);
    if (!a) return int(kUsageOrInput);
    auto b = openModel(parser, 1);
    if (!b) return int(kUsageOrInput);
    // Through saved provenance where B was saved by Graft from A (or both are one file), else by
    // module path, op and order.
    const auto diff = core::edit::diffDocuments(*a, *a->current(), *b, *b->current());
    if (parser.isSet(QStringLiteral("json"))) {
      auto json = diff.toJson();
      json.insert(QStringLiteral("a"), a->displayName());
      json.insert(QStringLiteral("b"), b->displayName());
      printJson(json);
    } else {
      QString text = QStringLiteral("%1 -> %2: %3 added, %4 removed, %5 changed\n")
                         .arg(a->displayName(), b->displayName())
                         .arg(diff.added.size())
                         .arg(diff.removed.size())
                         .arg(diff.changed.size());
      for (const auto& d : diff.removed)
        text += QStringLiteral("- %1 %2%3\n")
                    .arg(d.op, d.modulePath,
                         d.foldedInto
                             ? QStringLiteral("  (folded into %1 %2)").arg(d.foldedInto->op, d.foldedInto->modulePath)
                             : QString());
      for (const auto& d : diff.added) text += QStringLiteral("+ %1 %2\n").arg(d.op, d.modulePath);
      for (const auto& d : diff.changed)
        text += QStringLiteral("~ %1 %2: %3\n").arg(d.op, d.modulePath, d.what.join(QStringLiteral(", ")));
      printText(text);
    }
    return diff.equal() ? int(kOk) : int(kAnswerNo);
  };
  return c;
}

}  // namespace graft::cli
