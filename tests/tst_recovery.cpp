// The GUI's editing: actions on the selected node with undo/redo and the History dock, and crash
// recovery for real: the graft process is killed (QProcess::kill) after several edits, and a new
// main window recovers every edit from the journal it left.
#include "core/edit/edit.h"
#include "core/edit/session.h"
#include "core/io/load.h"
#include "core/io/save.h"
#include "core/model/document.h"
#include "core/rewrite/library.h"
#include "core/rewrite/rule_parser.h"
#include "test_support.h"
#include "ui/edit_actions.h"
#include "ui/history_dock.h"
#include "ui/document/document_controller.h"
#include "ui/main_window.h"

#include <torch/script.h>

#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtCore/QTimer>
#include <QtTest/QtTest>
#include <QtWidgets/QAbstractButton>
#include <QtWidgets/QApplication>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QMessageBox>

#include <sys/stat.h>

using namespace graft;
using core::model::NodeId;

namespace {

NodeId nth(const core::model::Revision& rev, const char* kind, int n = 0) {
  for (NodeId id : rev.nodeIds())
    if (rev.nodeOf(id)->kind().toQualString() == std::string(kind) && n-- == 0) return id;
  return core::model::kNoNode;
}

// Four edits of the cnn sample by the NodeIds it gets on every load, with a rewrite applied in
// the Rewrites dock (fold-conv-bn) before the last one.
QJsonArray scriptedEdits() {
  auto doc = core::io::loadSample(QStringLiteral("cnn")).document;
  const auto& rev = *doc->current();
  namespace e = core::edit;
  return {e::toJson(e::ReplaceOp{nth(rev, "aten::relu"), QStringLiteral("aten::gelu")}),
          e::toJson(e::EditConstant{nth(rev, "aten::conv2d"), QStringLiteral("padding"), QStringLiteral("[2, 2]")}),
          e::toJson(e::InsertOp{nth(rev, "aten::conv2d", 2), 0, QStringLiteral("aten::sigmoid"), {}}),
          QJsonObject{{"rules", QJsonArray{"fold-conv-bn"}}},
          e::toJson(e::DeleteNode{nth(rev, "aten::relu", 2)})};
}
constexpr int kScripted = 5;

// Clicks `button` on the first message box that appears; counts the boxes answered.
int answered = 0;
void answerSoon(QMessageBox::StandardButton button = QMessageBox::Yes) {
  auto* timer = new QTimer(qApp);
  QObject::connect(timer, &QTimer::timeout, [timer, button] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      ++answered;
      box->button(button)->click();
      timer->stop();
      timer->deleteLater();
    }
  });
  timer->start(50);
}

}  // namespace

class TstRecovery : public QObject {
  Q_OBJECT
  QTemporaryDir sessions_;

 private Q_SLOTS:
  void initTestCase() { qputenv("GRAFT_SESSION_DIR", sessions_.path().toUtf8()); }

  void actionsEditAndUndo() {
    ui::MainWindow w;
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    auto* actions = w.editActions();
    QCOMPARE(actions->undo->shortcut(), QKeySequence(QStringLiteral("Ctrl+Z")));
    QCOMPARE(actions->redo->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+Z")));
    QVERIFY(!actions->undo->isEnabled());
    auto* doc = w.controller()->document();
    const QString ir0 = doc->current()->irText();
    w.selectNode(nth(*doc->current(), "aten::relu"));
    QVERIFY(actions->deleteNode->isEnabled());
    actions->deleteNode->trigger();
    QCOMPARE(doc->count(), 2);
    QCOMPARE(doc->current()->irText().count(QStringLiteral("aten::relu(")), ir0.count(QStringLiteral("aten::relu(")) - 1);
    QCOMPARE(w.historyDock()->list()->count(), 2);
    QVERIFY(actions->undo->isEnabled());
    actions->undo->trigger();
    QCOMPARE(doc->currentIndex(), 0);
    QCOMPARE(doc->current()->irText(), ir0);
    QVERIFY(actions->redo->isEnabled());
    actions->redo->trigger();
    QCOMPARE(doc->currentIndex(), 1);
    // The History dock goes to a revision on click.
    auto* list = w.historyDock()->list();
    list->itemClicked(list->item(0));
    QCOMPARE(doc->currentIndex(), 0);
    // A refused edit (a folded constant cannot be deleted) leaves the document as it was.
    QVERIFY(!actions->applyEdit(core::edit::DeleteNode{doc->current()->idOf(doc->current()->nodeOf(nth(*doc->current(), "aten::conv2d"))->input(1)->node())}, false));
    QCOMPARE(doc->count(), 2);
  }

  // Rewrites are journaled with their rules' text and replay headlessly, with the edits after
  // them; a rule text that no longer parses is refused naming the rewrite.
  void rewritesReplay() {
    auto doc = core::io::loadSample(QStringLiteral("mlp")).document;
    core::edit::Session session(*doc);
    const auto library = core::rewrite::RuleLibrary::load();
    const auto* dropout = library.find(QStringLiteral("remove-dropout"));
    QVERIFY(dropout);
    // The journal form reads back as the same rule.
    const auto reparsed = core::rewrite::parseRule(core::rewrite::ruleText(*dropout), QStringLiteral("journal"));
    QVERIFY2(reparsed.ok(), qPrintable(reparsed.error.toString()));
    QCOMPARE(reparsed.rule.pattern, dropout->pattern);
    QCOMPARE(reparsed.rule.replacement, dropout->replacement);
    QCOMPARE(reparsed.rule.conditions.size(), dropout->conditions.size());
    const auto rewritten = session.applyRewrite({core::rewrite::Step::ofRule(*dropout),
                                                 core::rewrite::Step::ofPass(QStringLiteral("dead-code-elimination"))});
    QVERIFY2(rewritten.ok() && rewritten.reports[0].matches == 2, qPrintable(rewritten.error));
    QVERIFY(session.apply(core::edit::ReplaceOp{nth(*doc->current(), "aten::relu"), QStringLiteral("aten::gelu")}).ok());
    const QJsonObject journal = session.toJson();

    auto fresh = core::io::loadSample(QStringLiteral("mlp")).document;
    core::edit::Session again(*fresh);
    const auto replayed = again.replay(journal);
    QVERIFY2(replayed.ok, qPrintable(replayed.error));
    QCOMPARE(replayed.applied, 2);
    QCOMPARE(fresh->count(), 3);
    for (int i = 0; i < 3; ++i) QCOMPARE(fresh->revision(i)->irText(), doc->revision(i)->irText());
    QVERIFY(!fresh->current()->irText().contains(QStringLiteral("aten::dropout")));

    QJsonObject broken = journal;
    QJsonArray edits = broken.value("edits").toArray();
    QJsonObject first = edits[0].toObject();
    QJsonObject rewrite = first.value("rewrite").toObject();
    QJsonArray steps = rewrite.value("steps").toArray();
    QJsonObject step = steps[0].toObject();
    step.insert("rule", QStringLiteral("id: remove-dropout\n[pattern]\ngraph(%x):\n  %y = aten::nosuchop(%x)\n  return (%y)\n"));
    steps[0] = step;
    rewrite.insert("steps", steps);
    first.insert("rewrite", rewrite);
    edits[0] = first;
    broken.insert("edits", edits);
    auto third = core::io::loadSample(QStringLiteral("mlp")).document;
    core::edit::Session refused(*third);
    const auto r = refused.replay(broken);
    QVERIFY(!r.ok);
    QVERIFY2(r.error.contains(QLatin1String("rewrite 1")), qPrintable(r.error));
  }

  // The opened model is never overwritten (the output policy): Save As onto it, or onto a
  // symlink to it, is refused with a message and the file stays as it was.
  // A journal cut short inside an edit (a crash or a full disk while it was written) keeps every
  // edit written whole before the cut, says what was dropped, and replays: in core, through
  // graft-cli replay, and through the GUI's recovery at start-up.
  void truncatedJournalKeepsIntactEdits() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("journal.json"));
    auto doc = core::io::loadSample(QStringLiteral("cnn")).document;
    {
      core::edit::Session session(*doc);
      session.setJournalPath(path);
      QVERIFY(session.apply(core::edit::ReplaceOp{nth(*doc->current(), "aten::relu"), QStringLiteral("aten::gelu")}).ok());
      QVERIFY(session.apply(core::edit::EditConstant{nth(*doc->current(), "aten::conv2d"), QStringLiteral("padding"), QStringLiteral("[2, 2]")}).ok());
      QVERIFY(session.apply(core::edit::InsertOp{nth(*doc->current(), "aten::conv2d", 2), 0, QStringLiteral("aten::sigmoid"), {}}).ok());
    }
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray whole = f.readAll();
    f.close();
    // The source is written before the edits, so a cut anywhere in them still names the model.
    QVERIFY(whole.indexOf("\"source\"") < whole.indexOf("\"edits\""));
    auto startOfEdit = [&](int n) {  // where edit n (1-based) starts: its "parent" key
      qsizetype at = whole.indexOf("\"edits\"");
      for (int i = 0; i < n; ++i) at = whole.indexOf("\"parent\"", at + 1);
      return at;
    };
    auto writeCut = [&](const QString& to, qsizetype length) {
      QFile out(to);
      QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
      out.write(whole.left(length));
    };
    struct Case {
      const char* name;
      qsizetype cut;
      int kept;
    };
    for (const Case& c : {Case{"inside edit 2", startOfEdit(2) + 12, 1}, Case{"inside edit 3", startOfEdit(3) + 40, 2},
                          Case{"inside edit 1", startOfEdit(1) + 5, 0}, Case{"at the last byte", whole.size() - 3, 3}}) {
      const QString cut = dir.filePath(QStringLiteral("cut.json"));
      writeCut(cut, c.cut);
      QString error;
      const auto journal = core::edit::Session::readJournal(cut, &error);
      QVERIFY2(journal, qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(c.name), error)));
      QCOMPARE(journal->value(QLatin1String("edits")).toArray().size(), c.kept);
      auto fresh = core::io::loadSample(QStringLiteral("cnn")).document;
      core::edit::Session again(*fresh);
      const auto replayed = again.replay(*journal);
      QVERIFY2(replayed.ok, qPrintable(replayed.error));
      QCOMPARE(replayed.applied, c.kept);
      QCOMPARE(fresh->current()->irText(), doc->revision(c.kept)->irText());
      QVERIFY2(replayed.warning.contains(QLatin1String("cut short")), qPrintable(replayed.warning));
      if (c.kept < 3) QVERIFY2(replayed.warning.contains(QStringLiteral("inside edit %1").arg(c.kept + 1)), qPrintable(replayed.warning));
      QCOMPARE(replayed.diagnostics(cut).size(), size_t(1));
    }
    // Cut before the edits begin (inside the source): nothing can be recovered, and it says so.
    writeCut(dir.filePath(QStringLiteral("headless.json")), whole.indexOf("\"source\"") + 10);
    QString error;
    QVERIFY(!core::edit::Session::readJournal(dir.filePath(QStringLiteral("headless.json")), &error));
    QVERIFY(!error.isEmpty());

    // graft-cli replay: the first edit is replayed and saved, the drop is a warning.
    writeCut(dir.filePath(QStringLiteral("cut.json")), startOfEdit(2) + 12);
    const QString out = dir.filePath(QStringLiteral("replayed.pt"));
    const auto r = graft::test::runCli({QStringLiteral("replay"), QStringLiteral("--sample"), QStringLiteral("cnn"),
                                        dir.filePath(QStringLiteral("cut.json")), QStringLiteral("-o"), out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.err.contains("warning") && r.err.contains("cut short"), r.err.constData());
    QVERIFY2(r.out.contains("replayed 1 edits"), r.out.constData());
    QVERIFY(QFileInfo::exists(out));

    // The GUI's recovery at start-up offers the journal and restores its intact edit.
    const QString left = QDir(sessions_.path()).filePath(QStringLiteral("cut-short.json"));
    writeCut(left, startOfEdit(2) + 12);
    ui::MainWindow w;
    answered = 0;
    answerSoon(QMessageBox::Yes);
    QVERIFY(w.controller()->offerRecovery());
    QCOMPARE(answered, 1);
    QCOMPARE(w.controller()->document()->count(), 2);
    QCOMPARE(w.controller()->document()->current()->irText(), doc->revision(1)->irText());
    QVERIFY(!core::edit::Session::unclosedJournals().contains(left));
  }

  // A journal path or a source model that is a FIFO is refused at once, never opened for a
  // blocking read (the GUI hung recovering a journal whose source was a FIFO).
  void fifosNeverBlock() {
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("fifo"));
    QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
    QElapsedTimer clock;
    clock.start();
    QString error;
    QVERIFY(!core::edit::Session::readJournal(fifo, &error));
    QVERIFY2(error.contains(QLatin1String("not a regular file")), qPrintable(error));
    const auto loaded = core::io::loadFile(fifo);
    QVERIFY(!loaded.ok());
    QVERIFY2(loaded.error.headline.contains(QLatin1String("not a regular file")), qPrintable(loaded.error.headline));
    ui::MainWindow w;
    QVERIFY(!w.openFile(fifo));
    QVERIFY2(clock.elapsed() < 20000, qPrintable(QStringLiteral("%1 ms").arg(clock.elapsed())));
  }

  void saveAsNeverOverwritesTheModel() {
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("cnn.pt"));
    QVERIFY(core::io::saveRevision(*core::io::loadSample(QStringLiteral("cnn")).document->current(), model).ok);
    QFile in(model);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray original = in.readAll();
    in.close();
    ui::MainWindow w;
    QVERIFY(w.openFile(model));
    QVERIFY(w.editActions()->applyEdit(core::edit::ReplaceOp{nth(*w.controller()->document()->current(), "aten::relu"), QStringLiteral("aten::gelu")}, false));
    answered = 0;
    answerSoon(QMessageBox::Ok);
    QVERIFY(!w.controller()->saveAs(model));
    QCOMPARE(answered, 1);
    const QString link = dir.filePath(QStringLiteral("link.pt"));
    QVERIFY(QFile::link(model, link));
    answerSoon(QMessageBox::Ok);
    QVERIFY(!w.controller()->saveAs(link));
    QCOMPARE(answered, 2);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QCOMPARE(in.readAll(), original);  // refused: the opened file is untouched
    in.close();
    const QString other = dir.filePath(QStringLiteral("edited.pt"));
    QVERIFY(w.controller()->saveAs(other));  // another path: no question
    QCOMPARE(answered, 2);
    auto reloaded = core::io::loadFile(other);
    QVERIFY(reloaded.ok());
    QVERIFY(reloaded.document->current()->irText().contains(QStringLiteral("aten::gelu")));
  }

  // Killed (a crash) or sent SIGTERM (a shutdown, a logout that ends the process): either way
  // the journal is left as a crash leaves it, open, and the next start offers it.
  void killedSessionIsRecovered_data() {
    QTest::addColumn<bool>("terminate");
    QTest::newRow("killed") << false;
    QTest::newRow("SIGTERM") << true;
  }
  void killedSessionIsRecovered() {
    QFETCH(bool, terminate);
    // Clean exits of earlier tests leave only closed journals.
    QVERIFY(core::edit::Session::unclosedJournals().isEmpty());
    QTemporaryDir dir;
    const QJsonArray edits = scriptedEdits();
    const QString script = dir.filePath(QStringLiteral("edits.json"));
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(edits).toJson());
    f.close();

    QProcess gui;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("GRAFT_SESSION_DIR"), sessions_.path());
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    gui.setProcessEnvironment(env);
    gui.start(qEnvironmentVariable("GRAFT_GUI"), {QStringLiteral("--sample"), QStringLiteral("cnn"),
                                                  QStringLiteral("--script-edits"), script});
    QVERIFY2(gui.waitForStarted(), qPrintable(gui.errorString()));
    QByteArray out;
    QElapsedTimer clock;
    clock.start();
    const QByteArray last = "script-edit " + QByteArray::number(kScripted);
    while (!out.contains(last) && !out.contains("script-refused") && clock.elapsed() < 120000 && gui.state() == QProcess::Running) {
      gui.waitForReadyRead(500);
      out += gui.readAllStandardOutput();
    }
    QVERIFY2(out.contains(last), out.constData());
    // While that Graft lives its journal is locked: another instance neither offers nor closes it.
    QVERIFY(core::edit::Session::unclosedJournals().isEmpty());
    QString live;
    for (const QFileInfo& fi : QDir(sessions_.path()).entryInfoList({QStringLiteral("*.json")}, QDir::Files))
      if (auto j = core::edit::Session::readJournal(fi.absoluteFilePath(), nullptr); j && !j->value("closed").toBool())
        live = fi.absoluteFilePath();
    QVERIFY(!live.isEmpty());
    QVERIFY(core::edit::Session::isLockedElsewhere(live));
    QVERIFY(!core::edit::Session::markClosed(live));
    {
      ui::MainWindow second;
      QVERIFY(!second.controller()->offerRecovery());
    }
    if (terminate) gui.terminate();
    else gui.kill();  // a crash: no clean exit, the journal stays open
    QVERIFY(gui.waitForFinished());
    QCOMPARE(gui.exitStatus(), QProcess::CrashExit);

    const QStringList unclosed = core::edit::Session::unclosedJournals();
    QCOMPARE(unclosed.size(), 1);
    QString error;
    const auto journal = core::edit::Session::readJournal(unclosed.front(), &error);
    QVERIFY2(journal, qPrintable(error));
    QCOMPARE(journal->value("edits").toArray().size(), kScripted);
    QVERIFY(journal->value("edits").toArray()[3].toObject().value("rewrite").isObject());

    // What the edits and the rewrite give, applied headlessly.
    auto expected = core::io::loadSample(QStringLiteral("cnn")).document;
    core::edit::Session headless(*expected);
    const auto library = core::rewrite::RuleLibrary::load();
    for (const auto& e : edits) {
      if (e.toObject().contains("rules")) {
        const auto result = headless.applyRewrite({core::rewrite::Step::ofRule(*library.find(QStringLiteral("fold-conv-bn")))});
        QVERIFY2(result.ok() && result.reports[0].matches > 0, qPrintable(result.error));
      } else {
        QVERIFY(headless.apply(*core::edit::fromJson(e.toObject())).ok());
      }
    }

    // The restart: a new main window offers recovery; answering Yes replays every edit.
    ui::MainWindow w;
    answerSoon();
    QVERIFY(w.controller()->offerRecovery());
    QVERIFY(w.controller()->document());
    QCOMPARE(w.controller()->document()->count(), kScripted + 1);
    QCOMPARE(w.controller()->document()->currentIndex(), kScripted);
    for (int i = 0; i <= kScripted; ++i) QCOMPARE(w.controller()->document()->revision(i)->irText(), expected->revision(i)->irText());
    QVERIFY(w.controller()->document()->current()->irText().contains(QStringLiteral("aten::gelu")));
    // The rewrite is in: fewer batch_norms than before it.
    QVERIFY(w.controller()->document()->revision(4)->irText().count(QStringLiteral("aten::batch_norm(")) <
            w.controller()->document()->revision(3)->irText().count(QStringLiteral("aten::batch_norm(")));
    // The recovered edits live on in the new session's journal; the crashed one is closed.
    QVERIFY(core::edit::Session::readJournal(unclosed.front(), nullptr)->value("closed").toBool());
    // The new journal is this window's: open, locked while the window lives, so not offered.
    QVERIFY(core::edit::Session::unclosedJournals().isEmpty());
    const QString current = w.controller()->journalPath();
    const auto recovered = core::edit::Session::readJournal(current, nullptr);
    QVERIFY(recovered && !recovered->value("closed").toBool());
    QCOMPARE(recovered->value("edits").toArray().size(), kScripted);
  }
};

QTEST_MAIN(TstRecovery)
#include "tst_recovery.moc"
