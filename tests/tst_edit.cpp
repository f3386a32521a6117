// Edits with revisions: each kind applied (IR before/after, NodeIds carried over), refusals with
// their message, undo/redo, the session journal round trip, and an edited resnet18 saved and
// checked in stock PyTorch.
#include "core/edit/edit.h"
#include "core/edit/op_palette.h"
#include "core/edit/revision_diff.h"
#include "core/edit/session.h"
#include "core/io/load.h"
#include "core/io/save.h"
#include "core/model/graph_walk.h"
#include "core/samples/samples.h"
#include "test_support.h"

#include <torch/script.h>
#include <torch/serialize.h>

#include <QtCore/QJsonDocument>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <fstream>

using namespace graft::core;
using model::NodeId;

namespace {

std::unique_ptr<model::Document> sample(const QString& name) {
  auto r = io::loadSample(name);
  if (!r.ok()) qFatal("%s", qPrintable(r.error.message()));
  return std::move(r.document);
}

// The n-th node (0-based, graph order) of `kind`.
NodeId nth(const model::Revision& rev, const char* kind, int n = 0) {
  for (NodeId id : rev.nodeIds())
    if (rev.nodeOf(id)->kind().toQualString() == std::string(kind) && n-- == 0) return id;
  return model::kNoNode;
}

int count(const model::Revision& rev, const QString& kind) {
  int c = 0;
  for (NodeId id : rev.nodeIds()) c += QString::fromStdString(rev.nodeOf(id)->kind().toQualString()) == kind;
  return c;
}

// The id of the node producing input `i` of node `id`.
NodeId producerOf(const model::Revision& rev, NodeId id, int i) { return rev.idOf(rev.nodeOf(id)->input(i)->node()); }

void writeFile(const QString& path, const std::vector<char>& bytes) {
  std::ofstream(path.toStdString(), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

class TstEdit : public QObject {
  Q_OBJECT
  std::unique_ptr<model::Document> cnn_, mlp_;

 private Q_SLOTS:
  void initTestCase() {
    cnn_ = sample(QStringLiteral("cnn"));
    mlp_ = sample(QStringLiteral("mlp"));
  }

  void applies_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QJsonObject>("edit");
    QTest::addColumn<QString>("gone");     // kind whose count drops by one ("" for none)
    QTest::addColumn<QString>("appears");  // kind whose count rises by one
    QTest::addColumn<QString>("refusal");  // "" when the edit must succeed, else part of the message
    const auto& c = *cnn_->current();
    const auto& m = *mlp_->current();
    const NodeId relu = nth(c, "aten::relu");
    const NodeId conv0 = nth(c, "aten::conv2d");
    const NodeId conv1 = nth(c, "aten::conv2d", 1);
    const NodeId drop = nth(m, "aten::dropout");
    auto j = [](const edit::Edit& e) { return edit::toJson(e); };
    QTest::newRow("delete dropout") << "mlp" << j(edit::DeleteNode{drop}) << "aten::dropout" << "" << "";
    QTest::newRow("delete relu") << "cnn" << j(edit::DeleteNode{relu}) << "aten::relu" << "" << "";
    QTest::newRow("delete constant refused") << "cnn" << j(edit::DeleteNode{producerOf(c, conv0, 3)}) << "" << ""
                                             << "is a folded constant";
    QTest::newRow("delete conv refused") << "cnn" << j(edit::DeleteNode{conv1}) << "" << "" << "has 3 tensor inputs";
    QTest::newRow("bypass relu") << "cnn" << j(edit::BypassNode{relu, 0}) << "aten::relu" << "" << "";
    QTest::newRow("bypass missing input") << "cnn" << j(edit::BypassNode{relu, 4}) << "" << "" << "has no input 4";
    QTest::newRow("insert sigmoid") << "cnn" << j(edit::InsertOp{conv1, 0, QStringLiteral("aten::sigmoid"), {}}) << ""
                                    << "aten::sigmoid" << "";
    QTest::newRow("insert leaky_relu with argument")
        << "cnn" << j(edit::InsertOp{conv1, 0, QStringLiteral("aten::leaky_relu"), {{QStringLiteral("negative_slope"), QStringLiteral("0.2")}}})
        << "" << "aten::leaky_relu" << "";
    QTest::newRow("insert unknown op") << "cnn" << j(edit::InsertOp{conv1, 0, QStringLiteral("aten::no_such_op"), {}}) << "" << ""
                                       << "no operator named aten::no_such_op";
    QTest::newRow("insert mm refused") << "cnn" << j(edit::InsertOp{conv1, 0, QStringLiteral("aten::mm"), {}}) << "" << ""
                                       << "cannot take";
    QTest::newRow("replace relu by gelu") << "cnn" << j(edit::ReplaceOp{relu, QStringLiteral("aten::gelu")}) << "aten::relu"
                                          << "aten::gelu" << "";
    QTest::newRow("replace relu by sigmoid") << "cnn" << j(edit::ReplaceOp{relu, QStringLiteral("sigmoid")}) << "aten::relu"
                                             << "aten::sigmoid" << "";
    QTest::newRow("replace relu by conv2d refused") << "cnn" << j(edit::ReplaceOp{relu, QStringLiteral("aten::conv2d")}) << ""
                                                    << "" << "do not fit aten::conv2d";
    QTest::newRow("rewire") << "cnn" << j(edit::RewireInput{conv1, 0, producerOf(c, relu, 0), 0}) << "" << "" << "";
    QTest::newRow("rewire cycle refused") << "cnn" << j(edit::RewireInput{conv0, 0, relu, 0}) << "" << "" << "make a cycle";
    QTest::newRow("rewire type mismatch refused") << "cnn" << j(edit::RewireInput{conv1, 0, producerOf(c, conv0, 3), 0}) << ""
                                                  << "" << "argument 'input' expects Tensor but gets List[int]";
    QTest::newRow("edit stride") << "cnn" << j(edit::EditConstant{conv0, QStringLiteral("stride"), QStringLiteral("[2, 2]")})
                                 << "" << "" << "";
    QTest::newRow("edit dropout p") << "mlp" << j(edit::EditConstant{drop, QStringLiteral("p"), QStringLiteral("0.5")}) << ""
                                    << "" << "";
    QTest::newRow("edit stride bad text") << "cnn" << j(edit::EditConstant{conv0, QStringLiteral("stride"), QStringLiteral("two")})
                                          << "" << "" << "is not a list";
    QTest::newRow("edit computed argument refused")
        << "cnn" << j(edit::EditConstant{conv1, QStringLiteral("input"), QStringLiteral("1")}) << "" << "" << "not a folded constant";
  }
  void applies() {
    QFETCH(QString, model);
    QFETCH(QJsonObject, edit);
    QFETCH(QString, gone);
    QFETCH(QString, appears);
    QFETCH(QString, refusal);
    auto& doc = model == QLatin1String("cnn") ? *cnn_ : *mlp_;
    const auto before = doc.current();
    const QString irBefore = before->irText();
    QString error;
    const auto e = edit::fromJson(edit, &error);
    QVERIFY2(e, qPrintable(error));
    QCOMPARE(edit::toJson(*e), edit);  // the journal form round-trips
    const auto result = edit::apply(*e, *before, doc.ids());
    QCOMPARE(before->irText(), irBefore);  // the base revision is never touched
    if (!refusal.isEmpty()) {
      QVERIFY(!result.ok());
      QVERIFY2(result.error.contains(refusal), qPrintable(result.error));
      qInfo("refused: %s", qPrintable(result.error));
      QVERIFY(result.node != model::kNoNode);
      return;
    }
    QVERIFY2(result.ok(), qPrintable(result.error));
    const auto& after = *result.revision;
    const QString irAfter = after.irText();
    QVERIFY(irAfter != irBefore);
    if (!gone.isEmpty()) QCOMPARE(count(after, gone), count(*before, gone) - 1);
    if (!appears.isEmpty()) {
      QCOMPARE(count(after, appears), count(*before, appears) + 1);
      QVERIFY(irAfter.contains(appears));
    }
    // Every node the edit did not add keeps its id and kind.
    const auto d = edit::diff(*before, after);
    QVERIFY(!d.empty());
    for (NodeId id : after.nodeIds()) {
      if (d.added.contains(id)) continue;
      QVERIFY(before->nodeOf(id));
      QCOMPARE(after.nodeOf(id)->kind(), before->nodeOf(id)->kind());
    }
    QVERIFY(d.added.size() + d.removed.size() <= 4);
    if (!appears.isEmpty()) {
      bool addedAppears = false;
      for (NodeId id : d.added) addedAppears |= QString::fromStdString(after.nodeOf(id)->kind().toQualString()) == appears;
      QVERIFY(addedAppears);
    }
    if (edit.value("kind") == QLatin1String("edit_constant")) {
      QCOMPARE(d.constants.size(), 1);
      QCOMPARE(d.constants[0].argument, edit.value("argument").toString());
      if (edit.value("value").toString().startsWith(QLatin1Char('[')))
        QCOMPARE(d.constants[0].after, edit.value("value").toString());
    }
    if (edit.value("kind") == QLatin1String("rewire_input"))
      QCOMPARE(producerOf(after, edit.value("consumer").toInteger(), 0), NodeId(edit.value("producer").toInteger()));
    // The edited graph still runs.
    const auto* info = samples::find(model);
    QVERIFY(after.runnable().forward({torch::randn(info->inputShape)}).isTensor());
  }

  void constantEditLeavesOtherConsumers() {
    // Two convs share one stride constant (or equal lists): editing one leaves the other alone.
    const auto& c = *cnn_->current();
    const NodeId conv0 = nth(c, "aten::conv2d"), conv1 = nth(c, "aten::conv2d", 1);
    auto r = edit::apply(edit::EditConstant{conv0, QStringLiteral("padding"), QStringLiteral("[0, 0]")}, c, cnn_->ids());
    QVERIFY2(r.ok(), qPrintable(r.error));
    const auto d = edit::diff(c, *r.revision);
    QCOMPARE(d.constants.size(), 1);
    QCOMPARE(d.constants[0].node, conv0);
    QCOMPARE(d.constants[0].before, QStringLiteral("[1, 1]"));
    QCOMPARE(d.constants[0].after, QStringLiteral("[0, 0]"));
    QCOMPARE(*torch::jit::toIValue(r.revision->nodeOf(conv1)->input(4)), *torch::jit::toIValue(c.nodeOf(conv1)->input(4)));
  }

  void undoRedoRestoresIr() {
    auto doc = sample(QStringLiteral("cnn"));
    edit::Session session(*doc);
    const QString ir0 = doc->current()->irText();
    QVERIFY(session.apply(edit::ReplaceOp{nth(*doc->current(), "aten::relu"), QStringLiteral("aten::gelu")}).ok());
    const QString ir1 = doc->current()->irText();
    QVERIFY(session.apply(edit::DeleteNode{nth(*doc->current(), "aten::relu")}).ok());
    const QString ir2 = doc->current()->irText();
    QVERIFY(ir0 != ir1 && ir1 != ir2);
    doc->undo();
    QCOMPARE(doc->current()->irText(), ir1);
    doc->undo();
    QCOMPARE(doc->current()->irText(), ir0);
    QVERIFY(!doc->canUndo());
    doc->redo();
    QCOMPARE(doc->current()->irText(), ir1);
    doc->redo();
    QCOMPARE(doc->current()->irText(), ir2);
    // A refused edit changes nothing.
    const int count = doc->count();
    QVERIFY(!session.apply(edit::ReplaceOp{nth(*doc->current(), "aten::add"), QStringLiteral("aten::nope")}).ok());
    QCOMPARE(doc->count(), count);
    QCOMPARE(doc->current()->irText(), ir2);
  }

  // A revision is titled by where the node is and what it does, never by an internal node id.
  void revisionTitlesNameModules() {
    auto doc = sample(QStringLiteral("cnn"));
    edit::Session session(*doc);
    const NodeId relu = nth(*doc->current(), "aten::relu");
    const QString path = doc->current()->modulePathOf(relu);
    QVERIFY(session.apply(edit::ReplaceOp{relu, QStringLiteral("aten::gelu")}).ok());
    const QString title = doc->current()->name();
    const QString where = path.isEmpty() ? QStringLiteral("aten::relu (top level)") : path + QStringLiteral(" (aten::relu)");
    QCOMPARE(title, QStringLiteral("Replace %1 by aten::gelu").arg(where));
    QVERIFY2(!title.contains(QRegularExpression(QStringLiteral("node \\d"))), qPrintable(title));
    QVERIFY(session.apply(edit::DeleteNode{nth(*doc->current(), "aten::gelu")}).ok());
    QVERIFY2(!doc->current()->name().contains(QRegularExpression(QStringLiteral("node \\d"))), qPrintable(doc->current()->name()));
    QVERIFY2(doc->current()->name().startsWith(QStringLiteral("Delete ")) && doc->current()->name().contains("(aten::gelu)"),
             qPrintable(doc->current()->name()));
  }

  void journalRoundTrip() {
    QTemporaryDir dir;
    qputenv("GRAFT_SESSION_DIR", dir.path().toUtf8());
    auto doc = sample(QStringLiteral("cnn"));
    edit::Session session(*doc);
    session.setJournalPath(edit::Session::newJournalPath());
    QVERIFY(session.journalPath().startsWith(dir.path()));
    QVERIFY(session.apply(edit::ReplaceOp{nth(*doc->current(), "aten::relu"), QStringLiteral("aten::gelu")}).ok());
    QVERIFY(session.apply(edit::EditConstant{nth(*doc->current(), "aten::conv2d"), QStringLiteral("stride"), QStringLiteral("[2, 2]")}).ok());
    doc->undo();  // the next edit makes a sibling branch
    QVERIFY(session.apply(edit::InsertOp{nth(*doc->current(), "aten::conv2d", 2), 0, QStringLiteral("aten::sigmoid"), {}}).ok());
    // Unclosed, but locked while its Session lives: not offered for recovery.
    QVERIFY(edit::Session::isLockedElsewhere(session.journalPath()));
    QVERIFY(edit::Session::unclosedJournals().isEmpty());
    QString error;
    const auto journal = edit::Session::readJournal(session.journalPath(), &error);
    QVERIFY2(journal, qPrintable(error));
    QCOMPARE(journal->value("edits").toArray().size(), 3);

    auto fresh = sample(QStringLiteral("cnn"));
    edit::Session replayed(*fresh);
    const auto r = replayed.replay(*journal);
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(r.applied, 3);
    QCOMPARE(fresh->count(), doc->count());
    QCOMPARE(fresh->currentIndex(), doc->currentIndex());
    for (int i = 0; i < doc->count(); ++i) {
      QCOMPARE(fresh->parentOf(i), doc->parentOf(i));
      QCOMPARE(fresh->revision(i)->irText(), doc->revision(i)->irText());
      QCOMPARE(fresh->revision(i)->nodeIds(), doc->revision(i)->nodeIds());
    }
    QVERIFY(session.close());
    QVERIFY(edit::Session::unclosedJournals().isEmpty());
    // Another model refuses the journal.
    auto other = sample(QStringLiteral("mlp"));
    edit::Session wrong(*other);
    const auto bad = wrong.replay(*journal);
    QVERIFY(!bad.ok && bad.sourceMismatch);
    QCOMPARE(other->count(), 1);
    qunsetenv("GRAFT_SESSION_DIR");
  }

  // graft-cli replay applies a journal headlessly, and refuses another file by its SHA-256.
  void replayCli() {
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("cnn.pt"));
    const QString other = dir.filePath(QStringLiteral("mlp.pt"));
    QVERIFY(io::saveRevision(*sample(QStringLiteral("cnn"))->current(), model).ok);
    QVERIFY(io::saveRevision(*sample(QStringLiteral("mlp"))->current(), other).ok);
    auto loaded = io::loadFile(model);
    QVERIFY(loaded.ok());
    auto& doc = *loaded.document;
    edit::Session session(doc);
    const QString journal = dir.filePath(QStringLiteral("session.json"));
    session.setJournalPath(journal);
    QVERIFY(session.apply(edit::ReplaceOp{nth(*doc.current(), "aten::relu", 1), QStringLiteral("aten::gelu")}).ok());
    QVERIFY(session.apply(edit::EditConstant{nth(*doc.current(), "aten::conv2d"), QStringLiteral("padding"), QStringLiteral("[2, 2]")}).ok());
    const QString out = dir.filePath(QStringLiteral("out.pt"));
    const auto r = graft::test::runCli({QStringLiteral("replay"), model, journal, QStringLiteral("-o"), out, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(r.json().value("edits").toInt(), 2);
    QCOMPARE(r.json().value("current").toInt(), 2);
    auto replayed = io::loadFile(out);
    QVERIFY(replayed.ok());
    QVERIFY(replayed.document->current()->irText().contains(QStringLiteral("aten::gelu")));
    const auto x = torch::randn({1, 3, 32, 32});
    QVERIFY(torch::allclose(replayed.document->current()->runnable().forward({x}).toTensor(),
                            doc.current()->runnable().forward({x}).toTensor(), 1e-5, 1e-6));
    const auto bad = graft::test::runCli({QStringLiteral("replay"), other, journal, QStringLiteral("-o"), dir.filePath(QStringLiteral("bad.pt"))});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("SHA-256"), bad.err.constData());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("bad.pt"))));
    const auto unfrozen = graft::test::runCli({QStringLiteral("replay"), model, journal, QStringLiteral("--no-freeze"),
                                               QStringLiteral("-o"), dir.filePath(QStringLiteral("bad.pt"))});
    QCOMPARE(unfrozen.exitCode, 2);
    QVERIFY2(unfrozen.err.contains("without --no-freeze"), unfrozen.err.constData());
  }

  void paletteListsRegisteredOps() {
    const auto palette = edit::OpPalette::fromRegistry();
    QVERIFY(palette.entries().size() > 1000);
    const auto hits = palette.search(QStringLiteral("gelu"));
    QVERIFY(!hits.isEmpty());
    QCOMPARE(hits.front().name, QStringLiteral("aten::gelu"));
    QVERIFY(hits.front().schema.startsWith(QStringLiteral("aten::gelu(Tensor self")));
    for (const auto& h : hits) QVERIFY(h.overload != QLatin1String("out"));
  }

  // A node with several tensor inputs (a convolution and its weight) is not deleted but bypassed.
  void deleteRefusedWhereTypesDiffer() {
    const QString model = graft::test::testdata(QStringLiteral("resnet18.pt"));
    if (!QFile::exists(model)) QSKIP("resnet18.pt missing (run the make_testdata fixture)");
    auto loaded = io::loadFile(model);
    QVERIFY(loaded.ok());
    auto& doc = *loaded.document;
    const NodeId conv = nth(*doc.current(), "aten::_convolution") ? nth(*doc.current(), "aten::_convolution")
                                                                  : nth(*doc.current(), "aten::conv2d");
    QVERIFY(conv);
    edit::Session session(doc);
    const auto r = session.apply(edit::DeleteNode{conv});
    QVERIFY(!r.ok());
    QCOMPARE(r.node, conv);
    QVERIFY2(r.error.contains(QStringLiteral("bypass it")), qPrintable(r.error));
    QCOMPARE(doc.count(), 1);
    QVERIFY(session.apply(edit::BypassNode{nth(*doc.current(), "aten::_convolution", 1), 0}).ok() ||
            session.apply(edit::BypassNode{nth(*doc.current(), "aten::conv2d", 1), 0}).ok());
    QCOMPARE(doc.count(), 2);
  }

  // An edited resnet18 saved by Graft runs in stock PyTorch and computes what Graft computes.
  void savedEditMatchesPyTorch() {
    const QString model = graft::test::testdata(QStringLiteral("resnet18.pt"));
    if (!QFile::exists(model)) QSKIP("resnet18.pt missing (run the make_testdata fixture)");
    auto loaded = io::loadFile(model);
    QVERIFY(loaded.ok());
    auto& doc = *loaded.document;
    edit::Session session(doc);
    auto r = session.apply(edit::ReplaceOp{nth(*doc.current(), "aten::relu_", 1), QStringLiteral("aten::gelu")});
    if (!r.ok()) r = session.apply(edit::ReplaceOp{nth(*doc.current(), "aten::relu", 1), QStringLiteral("aten::gelu")});
    QVERIFY2(r.ok(), qPrintable(r.error));
    const NodeId pool = nth(*doc.current(), "aten::max_pool2d");
    QVERIFY(pool);
    r = session.apply(edit::EditConstant{pool, QStringLiteral("padding"), QStringLiteral("[0, 0]")});
    QVERIFY2(r.ok(), qPrintable(r.error));
    QVERIFY(doc.current()->irText().contains(QStringLiteral("aten::gelu")));

    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("edited.pt"));
    const auto saved = io::saveRevision(*doc.current(), out);
    QVERIFY2(saved.ok, qPrintable(saved.error));
    torch::manual_seed(7);
    const auto x = torch::randn({1, 3, 224, 224});
    const auto y = doc.current()->runnable().forward({x}).toTensor();
    const auto y0 = doc.original()->runnable().forward({x}).toTensor();
    QVERIFY(!torch::allclose(y, y0));  // the edit changed the result
    writeFile(dir.filePath(QStringLiteral("x.pt")), torch::pickle_save(x));
    writeFile(dir.filePath(QStringLiteral("y.pt")), torch::pickle_save(y));
    const QString script = dir.filePath(QStringLiteral("check.py"));
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("import sys, torch\n"
            "m = torch.jit.load(sys.argv[1])\n"
            "x = torch.load(sys.argv[2]); y = torch.load(sys.argv[3])\n"
            "g = m.graph.str()\n"
            "with torch.no_grad(): out = m(x)\n"
            "print('gelu' in g, (out - y).abs().max().item())\n");
    f.close();
    const auto py = graft::test::runPython(script, {out, dir.filePath(QStringLiteral("x.pt")), dir.filePath(QStringLiteral("y.pt"))});
    QVERIFY2(py.exitCode == 0, py.err.constData());
    const QStringList words = QString::fromUtf8(py.out).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QCOMPARE(words.size(), 2);
    QCOMPARE(words[0], QStringLiteral("True"));
    const double maxAbs = words[1].toDouble();
    QVERIFY2(maxAbs <= 1e-5, qPrintable(QStringLiteral("max abs difference %1").arg(maxAbs)));
  }
};

QTEST_GUILESS_MAIN(TstEdit)
#include "tst_edit.moc"
