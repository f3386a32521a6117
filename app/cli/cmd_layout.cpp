#include "app/cli/commands.h"
#include "core/io/atomic_write.h"
#include "core/layout/flat_dot.h"
#include "core/layout/layout_engine.h"
#include "core/model/graph_view.h"
#include "ui/render/diagram_export.h"

#include <QtCore/QFile>
#include <QtCore/QJsonObject>

namespace graft::cli {

// `graft-cli layout`: the diagram as the GUI draws it, laid out on this thread (no GUI runs here,
// so nothing else touches Graphviz).
Command layoutCommand() {
  Command c{QStringLiteral("layout"), QStringLiteral("Lay out the diagram; export it as SVG/PNG, the op graph as DOT."),
            QStringLiteral("MODEL [--expand all|N] [--svg F] [--png F] [--dot F] [--json]"), {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("A .pt or .pt2 file (or --sample NAME)."));
    parser.addOption({QStringLiteral("expand"),
                      QStringLiteral("Open every group (all) or the groups above depth N (default 0: top level)."),
                      QStringLiteral("all|N"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("svg"), QStringLiteral("Write the diagram as SVG."), QStringLiteral("F")});
    parser.addOption({QStringLiteral("png"), QStringLiteral("Write the diagram as PNG."), QStringLiteral("F")});
    parser.addOption(
        {QStringLiteral("dot"), QStringLiteral("Write the flat op graph as Graphviz DOT."), QStringLiteral("F")});
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    const QString expand = parser.value(QStringLiteral("expand"));
    bool numeric = false;
    const int depth = expand.toInt(&numeric);
    if (expand != QLatin1String("all") && (!numeric || depth < 0))
      return fail(QStringLiteral("--expand takes \"all\" or a depth N >= 0, not \"%1\"").arg(expand));
    for (const char* option : {"svg", "png", "dot"})
      if (parser.isSet(QString::fromLatin1(option)) &&
          !outputAllowed(parser, parser.value(QString::fromLatin1(option))))
        return int(kUsageOrInput);
    auto doc = openModel(parser);
    if (!doc) return int(kUsageOrInput);
    auto view = std::make_shared<const core::model::GraphView>(core::model::GraphView::build(*doc->current(), *doc));
    core::layout::LayoutEngine engine;
    engine.setView(view);
    const auto diagram = engine.layout(numeric ? engine.expandToDepth(depth) : engine.expandAll());
    if (!diagram.error.isEmpty()) return fail(diagram.diagnostics());
    report(diagram.diagnostics());  // modules Graphviz failed on, drawn as a plain column
    QString error;
    if (parser.isSet(QStringLiteral("svg")) &&
        !ui::canvas::writeSvg(parser.value(QStringLiteral("svg")), diagram, *view, &error))
      return fail(error);
    if (parser.isSet(QStringLiteral("png")) &&
        !ui::canvas::writePng(parser.value(QStringLiteral("png")), diagram, *view, 1.5, 16000, &error))
      return fail(error);
    if (parser.isSet(QStringLiteral("dot"))) {
      const QString path = parser.value(QStringLiteral("dot"));
      if (const QString why = core::io::writeAtomically(path, core::layout::flatDot(*view)); !why.isEmpty())
        return fail(QStringLiteral("cannot write %1: %2").arg(path, why));
    }
    int expandedGroups = 0;
    for (const auto& g : diagram.groups) expandedGroups += g.expanded ? 1 : 0;
    if (parser.isSet(QStringLiteral("json"))) {
      printJson(QJsonObject{{"model", doc->displayName()},
                            {"nodes", int(diagram.nodes.size())},
                            {"edges", int(diagram.edges.size())},
                            {"groups", int(diagram.groups.size())},
                            {"expanded_groups", expandedGroups},
                            {"ops", view->opCount()},
                            {"width", diagram.bounds.width()},
                            {"height", diagram.bounds.height()},
                            {"layout_ms", diagram.layoutMs}});
    } else {
      printText(QStringLiteral("%1: %2 nodes, %3 edges, %4 groups (%5 expanded), %6×%7, laid out in %8 ms")
                    .arg(doc->displayName())
                    .arg(diagram.nodes.size())
                    .arg(diagram.edges.size())
                    .arg(diagram.groups.size())
                    .arg(expandedGroups)
                    .arg(diagram.bounds.width(), 0, 'f', 0)
                    .arg(diagram.bounds.height(), 0, 'f', 0)
                    .arg(diagram.layoutMs, 0, 'f', 1));
    }
    return int(kOk);
  };
  return c;
}

}  // namespace graft::cli
