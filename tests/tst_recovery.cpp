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
#include "measured_run.h"
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
#include <QtCore/QTemporaryFile>
#include <QtCore/QTimer>
#include <QtTest/QtTest>
#include <QtWidgets/QAbstractButton>
#include <QtWidgets/QApplication>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QMessageBox>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

using namespace graft;
using core::model::NodeId;
using test::Measured;
using test::runMeasured;

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

// A journal of `count` replace_op edits on the mlp sample, each undoing the one before (relu to
// gelu and back on act1's node), in the form Session writes, without provenance (replay derives
// it). Ids are drawn in order, so after the first edit every second edit names a node `step` ids
// after the one two edits before: seven real edits show the step and that the pattern holds.
QByteArray mlpJournal(int count) {
  auto doc = core::io::loadSample(QStringLiteral("mlp")).document;
  core::edit::Session session(*doc);
  QVector<NodeId> nodes;
  for (int i = 0; i < 7; ++i) {
    const NodeId node = nth(*doc->current(), i % 2 ? "aten::gelu" : "aten::relu");
    const auto applied = session.apply(core::edit::ReplaceOp{node, QLatin1String(i % 2 ? "aten::relu" : "aten::gelu")});
    if (!applied.ok()) {
      qWarning("mlpJournal: edit %d on node %llu: %s", i, (unsigned long long)node, qPrintable(applied.error));
      return {};
    }
    nodes << node;
  }
  const NodeId step = nodes[3] - nodes[1];
  for (int i = 1; i + 2 < nodes.size(); ++i)
    if (nodes[i + 2] - nodes[i] != step) {
      qWarning("mlpJournal: node ids %llu, %llu, %llu follow no pattern", (unsigned long long)nodes[i], (unsigned long long)nodes[i + 1],
               (unsigned long long)nodes[i + 2]);
      return {};
    }
  QJsonObject journal = session.toJson();
  QByteArray edits;
  edits.reserve(qsizetype(count) * 80);
  for (int k = 0; k < count; ++k) {
    const NodeId node = k == 0 ? nodes[0] : nodes[1 + (k - 1) % 2] + NodeId((k - 1) / 2) * step;
    edits += (k ? ",\n" : "") + QByteArrayLiteral("{\"parent\": ") + QByteArray::number(k) +
             ", \"edit\": {\"kind\": \"replace_op\", \"node\": " + QByteArray::number(node) + ", \"op\": \"" +
             (k % 2 ? "aten::relu" : "aten::gelu") + "\"}}";
  }
  journal.insert(QStringLiteral("edits"), QJsonArray());
  journal.insert(QStringLiteral("current"), count);
  QByteArray text = QJsonDocument(journal).toJson(QJsonDocument::Compact);
  text.replace("\"edits\":[]", "\"edits\":[" + edits + "]");
  return text;
}

bool writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}


}  // namespace

class TstRecovery : public QObject {
  Q_OBJECT
  QTemporaryDir sessions_;

 private Q_SLOTS:
  void initTestCase() { qputenv("GRAFT_SESSION_DIR", sessions_.path().toUtf8()); }

  // The generated journal is what a Session writes: its first edits replay to the same graphs.
  void generatedJournalMatchesRealEdits() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("six.json"));
    QVERIFY(writeFile(path, mlpJournal(6)));
    QString error;
    const auto journal = core::edit::Session::readJournal(path, &error);
    QVERIFY2(journal, qPrintable(error));
    auto doc = core::io::loadSample(QStringLiteral("mlp")).document;
    core::edit::Session session(*doc);
    const auto r = session.replay(*journal);
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(r.applied, 6);
    // The same six swaps made by hand give the same revisions.
    auto expected = core::io::loadSample(QStringLiteral("mlp")).document;
    core::edit::Session by(*expected);
    for (int i = 0; i < 6; ++i)
      QVERIFY(by.apply(core::edit::ReplaceOp{nth(*expected->current(), i % 2 ? "aten::gelu" : "aten::relu"),
                                             QLatin1String(i % 2 ? "aten::relu" : "aten::gelu")}).ok());
    for (int i = 0; i <= 6; ++i) QCOMPARE(doc->revision(i)->irText(), expected->revision(i)->irText());
    QVERIFY(doc->revision(5)->irText().contains(QStringLiteral("aten::gelu")));
  }

  // Only version 1 is read: 0, 2, -1, "1", null and a missing version are refused, naming what
  // the journal says, before anything is replayed (in core, by graft-cli replay, and by the GUI's
  // recovery, which does not offer it).
  void journalVersionIsChecked_data() {
    QTest::addColumn<QByteArray>("version");  // the JSON text, empty: no version member
    QTest::addColumn<QString>("mentions");
    QTest::newRow("1") << QByteArray("1") << QString();
    QTest::newRow("0") << QByteArray("0") << "version 0";
    QTest::newRow("2") << QByteArray("2") << "version 2";
    QTest::newRow("-1") << QByteArray("-1") << "version -1";
    QTest::newRow("\"1\"") << QByteArray("\"1\"") << "version \"1\"";
    QTest::newRow("null") << QByteArray("null") << "version null";
    QTest::newRow("missing") << QByteArray() << "no \"version\"";
  }
  void journalVersionIsChecked() {
    QFETCH(QByteArray, version);
    QFETCH(QString, mentions);
    QTemporaryDir dir;
    QJsonObject journal = QJsonDocument::fromJson(mlpJournal(2)).object();
    QByteArray text = QJsonDocument(journal).toJson(QJsonDocument::Compact);
    QVERIFY(text.contains("\"version\":1"));
    text.replace("\"version\":1", version.isEmpty() ? QByteArray("\"no_version\":1") : "\"version\":" + version);
    const QString path = dir.filePath(QStringLiteral("journal.json"));
    QVERIFY(writeFile(path, text));
    QString error;
    const auto read = core::edit::Session::readJournal(path, &error);
    const auto cli = graft::test::runCli({QStringLiteral("replay"), QStringLiteral("--sample"), QStringLiteral("mlp"), path,
                                          QStringLiteral("-o"), dir.filePath(QStringLiteral("o.pt"))});
    if (mentions.isEmpty()) {
      QVERIFY2(read, qPrintable(error));
      QVERIFY2(cli.exitCode == 0, cli.err.constData());
      return;
    }
    QVERIFY(!read);
    QVERIFY2(error.contains(mentions) && error.contains(QLatin1String("version 1")), qPrintable(error));
    QCOMPARE(cli.exitCode, 2);
    QVERIFY2(QString::fromUtf8(cli.err).contains(mentions), cli.err.constData());
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("o.pt"))));
  }

  // A journal over 64 MiB, or with more than 200,000 edits, is refused before it is replayed
  // (before it is even read, for the size), with a message saying the bound.
  void oversizedJournalsAreRefused() {
    QTemporaryDir dir;
    const QString big = dir.filePath(QStringLiteral("big.json"));
    QFile f(big);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(mlpJournal(1));
    QVERIFY(f.resize(qint64(65) << 20));
    f.close();
    QElapsedTimer clock;
    clock.start();
    QString error;
    QVERIFY(!core::edit::Session::readJournal(big, &error));
    QVERIFY2(error.contains(QLatin1String("64.0 MiB")), qPrintable(error));
    QVERIFY2(clock.elapsed() < 1000, qPrintable(QStringLiteral("%1 ms").arg(clock.elapsed())));

    const QString many = dir.filePath(QStringLiteral("many.json"));
    QVERIFY(writeFile(many, mlpJournal(core::edit::Session::kMaxJournalEdits + 1)));
    QVERIFY(QFileInfo(many).size() < core::edit::Session::kMaxJournalBytes);
    QVERIFY(!core::edit::Session::readJournal(many, &error));
    QVERIFY2(error.contains(QLatin1String("200001 edits")) && error.contains(QLatin1String("at most 200000")), qPrintable(error));
    for (const QString& journal : {big, many}) {
      const Measured m = runMeasured({QStringLiteral("replay"), QStringLiteral("--sample"), QStringLiteral("mlp"), journal,
                                      QStringLiteral("-o"), dir.filePath(QStringLiteral("o.pt"))});
      QVERIFY2(m.exitCode == 2 && m.err.startsWith("graft-cli: error: "), m.err.constData());
      QVERIFY2(m.ms < 30000, qPrintable(QStringLiteral("%1 ms").arg(m.ms)));
    }
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("o.pt"))));
  }

  // 100,000 valid edits (an 8 MB journal) replay through graft-cli in bounded time and memory,
  // and a Session with a journal of its own (the GUI's recovery) replays linearly: its journal is
  // written once, not after every edit.
  void largeJournalReplaysInBoundedTimeAndMemory() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("100k.json"));
    QVERIFY(writeFile(path, mlpJournal(100000)));
    const QString out = dir.filePath(QStringLiteral("o.pt"));
    const Measured m = runMeasured({QStringLiteral("replay"), QStringLiteral("--sample"), QStringLiteral("mlp"), path, QStringLiteral("-o"), out});
    QVERIFY2(m.exitCode == 0, m.err.constData());
    qInfo("replay of 100,000 edits (%lld KiB journal): %lld ms, peak RSS %ld MiB", QFileInfo(path).size() / 1024, m.ms, m.peakKiB / 1024);
    QVERIFY2(m.ms < 300000, qPrintable(QStringLiteral("%1 ms").arg(m.ms)));
    QVERIFY2(m.peakKiB < 4L * 1024 * 1024, qPrintable(QStringLiteral("peak %1 MiB").arg(m.peakKiB / 1024)));
    QVERIFY(QFileInfo::exists(out));

    // Recovery's path: a Session that journals, replaying 20,000 edits. Rewriting the journal
    // after each edit took minutes for 10,000; once at the end it is a fraction of the replay.
    QVERIFY(writeFile(path, mlpJournal(20000)));
    const auto journal = core::edit::Session::readJournal(path, nullptr);
    QVERIFY(journal);
    auto doc = core::io::loadSample(QStringLiteral("mlp")).document;
    core::edit::Session session(*doc);
    const QString own = dir.filePath(QStringLiteral("own.json"));
    session.setJournalPath(own);
    QElapsedTimer clock;
    clock.start();
    const auto r = session.replay(*journal);
    const qint64 ms = clock.elapsed();
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(r.applied, 20000);
    qInfo("Session replay of 20,000 edits with its own journal: %lld ms", ms);
    QVERIFY2(ms < 120000, qPrintable(QStringLiteral("%1 ms").arg(ms)));
    const auto written = core::edit::Session::readJournal(own, nullptr);
    QVERIFY(written);
    QCOMPARE(written->value(QLatin1String("edits")).toArray().size(), 20000);
    session.close();
  }

  // Memory running out while replaying (an address-space limit) is an error naming how far the
  // replay got, never std::bad_alloc ending the process.
  void replayOutOfMemoryIsAMessage() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("100k.json"));
    QVERIFY(writeFile(path, mlpJournal(100000)));
    // The address space graft-cli needs to start and load the sample (found by doubling, then
    // halving the step), plus 512 MiB: far less than 100,000 revisions take.
    auto starts = [](qint64 kib) {
      return runMeasured({QStringLiteral("info"), QStringLiteral("--sample"), QStringLiteral("mlp")},
                         QStringLiteral("ulimit -v %1").arg(kib)).exitCode == 0;
    };
    qint64 high = qint64(1) << 20;  // KiB: 1 GiB
    while (!starts(high) && high < (qint64(1) << 26)) high *= 2;
    QVERIFY(starts(high));
    qint64 low = high / 2;
    while (high - low > (qint64(1) << 17)) {  // to 128 MiB
      const qint64 mid = (low + high) / 2;
      (starts(mid) ? high : low) = mid;
    }
    const QString limit = QStringLiteral("ulimit -v %1").arg(high + (qint64(1) << 19));
    qInfo("graft-cli starts in %lld MiB of address space; replaying under %s", high / 1024, qPrintable(limit));
    const Measured m = runMeasured({QStringLiteral("replay"), QStringLiteral("--sample"), QStringLiteral("mlp"), path, QStringLiteral("-o"),
                                    dir.filePath(QStringLiteral("o.pt"))}, limit);
    QVERIFY2(m.signal == 0, qPrintable(QStringLiteral("signal %1: %2").arg(m.signal).arg(QString::fromUtf8(m.err))));
    QVERIFY2(m.exitCode == 2 && m.err.startsWith("graft-cli: error: ") && (m.err.contains("out of memory") || m.err.contains("bad_alloc")),
             m.err.constData());
    qInfo("%s", m.err.trimmed().constData());
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("o.pt"))));
  }

  // Declining recovery of a journal that is a symlink (to a file outside the session folder)
  // never writes the link's target: the link goes, the target stays byte for byte.
  void declinedSymlinkJournalIsNotWrittenThrough() {
    QTemporaryDir outside;
    const QString target = outside.filePath(QStringLiteral("users-file.json"));
    QVERIFY(writeFile(target, mlpJournal(2)));
    QFile t(target);
    QVERIFY(t.open(QIODevice::ReadOnly));
    const QByteArray before = t.readAll();
    t.close();
    const QString link = QDir(sessions_.path()).filePath(QStringLiteral("linked.json"));
    QVERIFY(QFile::link(target, link));
    QVERIFY(core::edit::Session::unclosedJournals().contains(link));
    {
      ui::MainWindow w;
      answered = 0;
      answerSoon(QMessageBox::No);
      QVERIFY(!w.controller()->offerRecovery());
      QCOMPARE(answered, 1);
    }
    QVERIFY(!QFileInfo(link).isSymLink() && !QFileInfo::exists(link));
    QVERIFY(t.open(QIODevice::ReadOnly));
    QCOMPARE(t.readAll(), before);
    QVERIFY(core::edit::Session::unclosedJournals().isEmpty());
  }

  void actionsEditAndUndo() {
    ui::MainWindow w;
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    auto* actions = w.parts().edits;
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
    QCOMPARE(w.parts().docks->history->list()->count(), 2);
    QVERIFY(actions->undo->isEnabled());
    actions->undo->trigger();
    QCOMPARE(doc->currentIndex(), 0);
    QCOMPARE(doc->current()->irText(), ir0);
    QVERIFY(actions->redo->isEnabled());
    actions->redo->trigger();
    QCOMPARE(doc->currentIndex(), 1);
    // The History dock goes to a revision on click.
    auto* list = w.parts().docks->history->list();
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
    QVERIFY(w.parts().edits->applyEdit(core::edit::ReplaceOp{nth(*w.controller()->document()->current(), "aten::relu"), QStringLiteral("aten::gelu")}, false));
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
