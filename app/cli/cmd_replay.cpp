#include "app/cli/commands.h"
#include "core/edit/session.h"
#include "core/io/save.h"
#include "core/model/graph_view.h"

#include <QtCore/QFileInfo>

namespace graft::cli {

// Applies a saved editing session (a GUI journal) to MODEL headlessly and saves the result.
Command replayCommand() {
  Command c{QStringLiteral("replay"), QStringLiteral("Apply a saved editing session to a model and save the result."),
            QStringLiteral("MODEL SESSION.json -o OUT.pt [--json]"), {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("Where to write the edited model."),
                      QStringLiteral("OUT.pt")});
    parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("The TorchScript file the session was made on."));
    parser.addPositionalArgument(QStringLiteral("SESSION"), QStringLiteral("The session journal (.json)."));
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    const QStringList pos = parser.positionalArguments();
    const int sessionIndex = parser.isSet(QStringLiteral("sample")) ? 0 : 1;
    if (pos.size() != sessionIndex + 1) return fail(QStringLiteral("usage: graft-cli replay ") + c.usage);
    const QString out = parser.value(QStringLiteral("output"));
    if (out.isEmpty()) return fail(QStringLiteral("missing -o OUT.pt"));
    QString error;
    const auto journal = core::edit::Session::readJournal(pos[sessionIndex], &error);
    if (!journal) return fail(error);
    auto doc = openModel(parser);
    if (!doc) return int(kUsageOrInput);
    const int opsBefore = core::model::GraphView::build(*doc->current()).opCount();
    core::edit::Session session(*doc);
    const auto r = session.replay(*journal);
    if (!r.ok) return fail(r.diagnostics(pos[sessionIndex]));
    if (!doc->sourcePath().isEmpty() && samePath(out, doc->sourcePath()))
      return fail(QStringLiteral("refusing to overwrite the model the session was made on: choose another -o"));
    const auto saved = core::io::saveRevision(*doc->current(), out);
    if (!saved.ok) return fail(saved.diagnostics(out));
    const int opsAfter = core::model::GraphView::build(*doc->current()).opCount();
    if (parser.isSet(QStringLiteral("json")))
      printJson(QJsonObject{{"model", doc->displayName()}, {"edits", r.applied}, {"revisions", doc->count()},
                            {"current", doc->currentIndex()}, {"revision", doc->current()->name()},
                            {"ops_before", opsBefore}, {"ops_after", opsAfter}, {"output", QFileInfo(out).absoluteFilePath()}});
    else
      printText(QStringLiteral("replayed %1 edits; revision %2 “%3” (%4 → %5 ops) saved to %6")
                    .arg(r.applied).arg(doc->currentIndex()).arg(doc->current()->name()).arg(opsBefore).arg(opsAfter).arg(out));
    return int(kOk);
  };
  return c;
}

}  // namespace graft::cli
