// The Rewrites dock and rule editor: match counts, live parse errors, Apply all as one undo step,
// saving into the user rule folder.
#include "core/edit/session.h"
#include "gui_support.h"

#include "core/io/load.h"
#include "core/model/document.h"
#include "core/rewrite/library.h"
#include "core/model/module_path.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_items.h"
#include "ui/canvas/graph_scene.h"
#include "ui/main_window.h"
#include "ui/rewrite/rewrite_dock.h"
#include "ui/rewrite/rule_editor.h"

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QMenuBar>
#include <QtWidgets/QLabel>
#include <QtWidgets/QPlainTextEdit>
#include <QtWidgets/QPushButton>

using namespace graft;

using graft::test::nodeAt;
using graft::test::showModel;
using graft::test::waitLayout;

class TstRewriteUi : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { qputenv("GRAFT_RULES_DIR", userDir_.path().toUtf8()); }

  void dockCountsAndAppliesAsOneUndoStep() {
    auto loaded = core::io::loadSample("cnn");
    QVERIFY(loaded.ok());
    ui::RewriteDock dock;
    dock.setDocument(loaded.document.get());
    // Rewrites commit through the document's Session, as the main window wires it.
    graft::core::edit::Session session(*loaded.document);
    dock.setCommitter([&](const QVector<core::rewrite::Step>& steps) { return session.applyRewrite(steps); });
    QVERIFY(dock.ruleIds().contains("fold-conv-bn"));
    const int bn = dock.matchCount("fold-conv-bn");
    QVERIFY(bn >= 1);
    QCOMPARE(dock.matchCount("silu-decompose"), 0);
    QSignalSpy selected(&dock, &ui::RewriteDock::ruleSelected);
    dock.selectRule("fold-conv-bn");
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected[0][1].toInt(), bn);
    // Search hides rules that do not mention the text.
    auto* search = dock.findChild<QLineEdit*>("ruleSearch");
    auto* list = dock.findChild<QListWidget*>("ruleList");
    search->setText("batch_norm");
    int visible = 0;
    for (int i = 0; i < list->count(); ++i) visible += list->item(i)->isHidden() ? 0 : 1;
    QCOMPARE(visible, 2);  // fold-conv-bn, fold-linear-bn
    search->clear();

    const int before = loaded.document->count();
    QVERIFY(!dock.applyAll().isEmpty());
    QCOMPARE(loaded.document->count(), before + 1);
    QVERIFY(!loaded.document->current()->irText().contains("batch_norm"));
    QCOMPARE(dock.matchCount("fold-conv-bn"), 0);
    loaded.document->undo();
    QVERIFY(loaded.document->current()->irText().contains("batch_norm"));
    QCOMPARE(dock.matchCount("fold-conv-bn"), bn);
  }

  void editorChecksAsYouTypeAndSaves() {
    auto loaded = core::io::loadSample("cnn");
    ui::RuleEditor editor;
    editor.setRevision(loaded.document->current());
    editor.findChild<QLineEdit*>("ruleId")->setText("my-relu");
    auto* pattern = editor.findChild<QPlainTextEdit*>("pattern");
    auto* replacement = editor.findChild<QPlainTextEdit*>("replacement");
    replacement->setPlainText("graph(%x):\n  %z : int = prim::Constant[value=0]()\n  %r = aten::clamp_min(%x, %z)\n  return (%r)");
    pattern->setPlainText("graph(%x):\n  %r = aten::relu(%x\n  return (%r)");
    QSignalSpy checked(&editor, &ui::RuleEditor::checked);
    QVERIFY(checked.wait(2000));
    QVERIFY2(editor.status().startsWith("pattern line 3, column 3"), qPrintable(editor.status()));
    QCOMPARE(editor.matchCount(), -1);
    QVERIFY(editor.save().isEmpty());  // a broken rule is not saved
    pattern->setPlainText("graph(%x):\n  %r = aten::relu(%x)\n  return (%r)");
    QVERIFY(checked.wait(2000));
    QVERIFY2(editor.matchCount() >= 1, qPrintable(editor.status()));
    const QString path = editor.save();
    QCOMPARE(path, QDir(userDir_.path()).filePath("my-relu.rule"));
    ui::RewriteDock dock;
    QVERIFY(dock.ruleIds().contains("my-relu"));
    // Editing a shipped rule keeps its self-tests in the saved copy.
    QFile shipped(":/rules/silu-decompose.rule");
    QVERIFY(shipped.open(QIODevice::ReadOnly));
    editor.setRuleText(QString::fromUtf8(shipped.readAll()));
    const auto reparsed = graft::core::rewrite::parseRule(editor.ruleText(), "copy.rule");
    QVERIFY2(reparsed.ok(), qPrintable(reparsed.error.toString()));
    QCOMPARE(reparsed.rule.tests.size(), 2);
    const auto lib = graft::core::rewrite::RuleLibrary::load();
    QCOMPARE(reparsed.rule.pattern, lib.find("silu-decompose")->pattern);
  }

  // Selecting a rule outlines every match on the canvas; the arrows step through them (revealed
  // and selected); a click inside a match makes it current; "Apply this match" rewrites only it.
  void matchesOnCanvasSteppedAndAppliedOne() {
    ui::MainWindow w;
    QVERIFY(showModel(w, "resnet18.pt"));
    auto* dock = w.findChild<ui::RewriteDock*>("rewriteDock");
    w.findChild<QDockWidget*>("rewritesDock")->raise();
    auto* scene = w.canvas()->graphScene();
    QVERIFY(scene->marks().isEmpty());
    dock->selectRule("fold-conv-bn");
    const auto sites = dock->shownMatches();
    QCOMPARE(sites.size(), 20);
    int marked = 0;
    for (const auto& site : sites)
      for (auto id : site.nodes) marked += scene->markOf(id) ? 1 : 0;
    QCOMPARE(marked, 40);
    QCOMPARE(scene->marks().size(), 40);
    // The first match is shown: its box is drawn (groups above it opened) and selected.
    QVERIFY(waitLayout(w.canvas()));
    QCOMPARE(dock->currentMatch(), 0);
    QCOMPARE(w.selectedNode(), sites[0].anchor);
    QVERIFY(scene->nodeItem(sites[0].anchor));
    QVERIFY(scene->markOf(sites[0].anchor)->rank > scene->markOf(sites[1].anchor)->rank);
    QVERIFY2(dock->findChild<QLabel*>("matchWhere")->text().contains("bn1 (aten::batch_norm)"),
             qPrintable(dock->findChild<QLabel*>("matchWhere")->text()));
    // Collapsed groups holding matches say so.
    int markedGroups = 0;
    for (const auto& g : w.view()->groups) markedGroups += scene->groupMark(g.index) ? 1 : 0;
    QVERIFY(markedGroups >= 4);  // layer1 ... layer4
    dock->findChild<QPushButton*>("nextMatch")->click();
    QVERIFY(waitLayout(w.canvas()));
    QCOMPARE(dock->currentMatch(), 1);
    QCOMPARE(w.selectedNode(), sites[1].anchor);
    dock->findChild<QPushButton*>("previousMatch")->click();
    dock->findChild<QPushButton*>("previousMatch")->click();
    QCOMPARE(dock->currentMatch(), 19);  // wraps around
    w.selectNode(sites[7].nodes[0]);      // the convolution of match 8
    QCOMPARE(dock->currentMatch(), 7);

    auto* doc = w.document();
    const int before = doc->count();
    dock->findChild<QPushButton*>("applyMatch")->click();
    QCOMPARE(doc->count(), before + 1);
    QVERIFY(!doc->current()->nodeOf(sites[7].anchor));
    QVERIFY(doc->current()->nodeOf(sites[8].anchor));
    QCOMPARE(dock->shownMatches().size(), 19);
    QCOMPARE(scene->marks().size(), 38);
    doc->undo();
    QCOMPARE(dock->shownMatches().size(), 20);
    // A rule with no matches clears the marks.
    dock->selectRule("silu-decompose");
    QVERIFY(dock->shownMatches().isEmpty());
    QVERIFY(scene->marks().isEmpty());
    QVERIFY(!dock->findChild<QPushButton*>("applyMatch")->isEnabled());
  }

  // The editor's matches take over the highlight as you type.
  void editorPreviewHighlightsAsYouType() {
    ui::MainWindow w;
    QVERIFY(w.openFile(graft::test::testdata("resnet18.pt")));
    auto* dock = w.findChild<ui::RewriteDock*>("rewriteDock");
    auto* editor = dock->editor();
    QSignalSpy preview(editor, &ui::RuleEditor::previewChanged);
    editor->findChild<QLineEdit*>("ruleId")->setText("strip-relu");
    editor->findChild<QPlainTextEdit*>("conditions")->setPlainText("module ~ layer1*");
    editor->findChild<QPlainTextEdit*>("replacement")->setPlainText("graph(%x):\n  return (%x)");
    editor->findChild<QPlainTextEdit*>("pattern")->setPlainText("graph(%x):\n  %r = aten::relu_(%x)\n  return (%r)");
    QVERIFY(preview.wait(2000));
    QCOMPARE(editor->matchCount(), 4);
    QCOMPARE(dock->shownMatches().size(), 4);
    QCOMPARE(w.canvas()->graphScene()->marks().size(), 4);
    for (auto id : w.canvas()->graphScene()->marks().keys())
      QVERIFY(w.view()->node(id)->modulePath.startsWith("layer1."));
  }

  // Ctrl+click builds a selection; "New rule from selection" drafts it into the editor, whose
  // preview then finds the same triple elsewhere.
  void newRuleFromCtrlClickedSelection() {
    ui::MainWindow w;
    QVERIFY(showModel(w, "resnet18.pt"));
    const auto conv = nodeAt(w.view(), "layer1.0.conv1", "aten::_convolution");
    const auto bn = nodeAt(w.view(), "layer1.0.bn1", "aten::batch_norm");
    QVERIFY(conv && bn);
    w.canvas()->revealNode(conv);
    QVERIFY(waitLayout(w.canvas()));
    w.canvas()->revealNode(bn);
    QVERIFY(waitLayout(w.canvas()));
    w.selectNode(conv);
    auto* scene = w.canvas()->graphScene();
    auto* bnItem = scene->nodeItem(bn);
    QVERIFY(bnItem);
    w.canvas()->centerOn(bnItem);
    QTest::mouseClick(w.canvas()->viewport(), Qt::LeftButton, Qt::ControlModifier,
                      w.canvas()->mapFromScene(bnItem->boundingRect().center()));
    QCOMPARE(w.selection(), (QVector<core::model::NodeId>{conv, bn}));
    QVERIFY(scene->nodeSelected(bn) && scene->nodeSelected(conv));
    auto* dock = w.findChild<ui::RewriteDock*>("rewriteDock");
    const QString said = dock->newRuleFromSelection();
    QVERIFY2(said.startsWith("Drafted"), qPrintable(said));
    const QString pattern = dock->editor()->findChild<QPlainTextEdit*>("pattern")->toPlainText();
    QVERIFY2(pattern.contains("aten::_convolution") && pattern.contains("aten::batch_norm"), qPrintable(pattern));
    // Every 3x3 stride-1 convolution + batch_norm: conv2/bn2 of all 8 blocks, and conv1/bn1 of the
    // 5 blocks that keep the resolution; not the stem's 7x7, the stride-2 ones or the 1x1 downsamples.
    QCOMPARE(dock->editor()->matchCount(), 13);
    QCOMPARE(dock->shownMatches().size(), 13);
    QStringList paths;
    for (const auto& site : dock->shownMatches()) paths << w.view()->node(site.nodes[0])->modulePath;
    QVERIFY(paths.contains("layer2.0.conv2") && !paths.contains("layer2.0.conv1") && !paths.contains("conv1"));
    const QString graftDir = graft::test::testdata("screenshots");
    QDir().mkpath(graftDir);
    w.findChild<QDockWidget*>("rewritesDock")->raise();
    QVERIFY(waitLayout(w.canvas()));
    QVERIFY(w.grab().save(graftDir + "/rewrite_draft_resnet18.png"));
    // Ctrl+click again drops a node from the selection.
    QTest::mouseClick(w.canvas()->viewport(), Qt::LeftButton, Qt::ControlModifier,
                      w.canvas()->mapFromScene(scene->nodeItem(bn)->boundingRect().center()));
    QCOMPARE(w.selection(), (QVector<core::model::NodeId>{conv}));
  }

  void matchesScreenshot() {
    ui::MainWindow w;
    QVERIFY(showModel(w, "resnet18.pt"));
    w.findChild<QDockWidget*>("rewritesDock")->raise();
    auto* dock = w.findChild<ui::RewriteDock*>("rewriteDock");
    dock->selectRule("fold-conv-bn");
    QVERIFY(waitLayout(w.canvas()));
    const QString dir = graft::test::testdata("screenshots");
    QDir().mkpath(dir);
    QVERIFY(w.grab().save(dir + "/rewrite_matches_resnet18.png"));
  }

  void mainWindowHasTheDock() {
    ui::MainWindow w;
    QVERIFY(w.findChild<QDockWidget*>("rewritesDock"));
    QVERIFY(w.openSample("cnn"));
    auto* dock = w.findChild<ui::RewriteDock*>("rewriteDock");
    QVERIFY(dock->matchCount("fold-conv-bn") >= 1);
  }

 private:
  QTemporaryDir userDir_;
};

QTEST_MAIN(TstRewriteUi)
#include "tst_rewrite_ui.moc"
