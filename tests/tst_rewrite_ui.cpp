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
#include "ui/document/document_controller.h"
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
#include <QtWidgets/QComboBox>
#include <QtCore/QElapsedTimer>
#include <QtGui/QTextBlock>
#include <QtGui/QTextLayout>

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
    QCOMPARE(visible, 3);  // fold-conv-bn, fold-linear-bn and its Python twin
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

    auto* doc = w.controller()->document();
    const int before = doc->count();
    dock->findChild<QPushButton*>("applyMatch")->click();
    QCOMPARE(doc->count(), before + 1);
    QVERIFY(!doc->current()->nodeOf(sites[7].anchor));
    QVERIFY(doc->current()->nodeOf(sites[8].anchor));
    QCOMPARE(dock->shownMatches().size(), 19);
    QCOMPARE(scene->marks().size(), 38);
    w.controller()->undo();
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

  // One current rule: typing makes the editor's rule the current one (the list then selects
  // nothing), and "Apply to all matches" applies exactly that previewed rule, not the one picked
  // in the list before. Picking a list rule over the unsaved edits asks first.
  void previewThenApplyAppliesTheTypedRule() {
    ui::MainWindow w;
    QVERIFY(w.openSample("cnn"));
    auto* dock = w.findChild<ui::RewriteDock*>("rewriteDock");
    auto* editor = dock->editor();
    auto* list = dock->findChild<QListWidget*>("ruleList");
    auto* applyAll = dock->findChild<QPushButton*>("applyRule");
    auto* status = dock->findChild<QLabel*>("ruleMatches");
    auto* doc = w.controller()->document();
    dock->selectRule("fold-conv-bn");
    const int folds = dock->matchCount("fold-conv-bn");
    QVERIFY(folds >= 1);
    QCOMPARE(dock->shownMatches().size(), folds);
    QVERIFY(applyAll->isEnabled());
    QSignalSpy preview(editor, &ui::RuleEditor::previewChanged);
    editor->findChild<QLineEdit*>("ruleId")->setText("typed-relu");
    editor->findChild<QPlainTextEdit*>("replacement")
        ->setPlainText("graph(%x):\n  %z : int = prim::Constant[value=0]()\n  %r = aten::clamp_min(%x, %z)\n  return (%r)");
    editor->findChild<QPlainTextEdit*>("pattern")->setPlainText("graph(%x):\n  %r = aten::relu(%x)\n  return (%r)");
    QVERIFY(preview.wait(2000));
    const int relus = editor->matchCount();
    QVERIFY(relus >= 1);
    QVERIFY(editor->modified());
    QCOMPARE(dock->selectedRule(), QString());  // the list picks nothing: the editor's rule is current
    QCOMPARE(list->selectedItems().size(), 0);
    QCOMPARE(dock->shownMatches().size(), relus);
    QVERIFY2(status->text().startsWith("The edited rule: " + QString::number(relus)), qPrintable(status->text()));
    QVERIFY(applyAll->isEnabled());
    // Picking a list rule now asks; Cancel keeps the typed rule as it is.
    QStringList asked;
    bool discard = false;
    dock->setDiscardPrompt([&](const QString& title) {
      asked << title;
      return discard;
    });
    dock->selectRule("silu-decompose");
    QCOMPARE(asked.size(), 1);
    QCOMPARE(dock->selectedRule(), QString());
    QVERIFY(editor->findChild<QPlainTextEdit*>("pattern")->toPlainText().contains("aten::relu"));
    QCOMPARE(dock->shownMatches().size(), relus);
    // Apply to all: the typed rule, as previewed, one revision; the batch norms stay.
    const int before = doc->count();
    applyAll->click();
    QCOMPARE(doc->count(), before + 1);
    QCOMPARE(doc->current()->name(), QStringLiteral("typed-relu"));
    QVERIFY(!doc->current()->irText().contains("aten::relu("));
    QCOMPARE(doc->current()->irText().count("aten::clamp_min("), relus);
    QVERIFY(doc->current()->irText().contains("aten::batch_norm"));
    // Now the typed rule matches nothing: both Apply buttons are disabled, and pressing Apply
    // anyway (the menu's Ctrl+Shift+Return) records no revision.
    QTRY_COMPARE(dock->shownMatches().size(), 0);
    QVERIFY(!applyAll->isEnabled());
    QVERIFY(!dock->findChild<QPushButton*>("applyMatch")->isEnabled());
    QCOMPARE(dock->applyShownRule(), QStringLiteral("No match to apply."));
    QCOMPARE(doc->count(), before + 1);
    // A syntax error: the status says the error, not the last count, and nothing can be applied.
    editor->findChild<QPlainTextEdit*>("pattern")->setPlainText("graph(%x):\n  %r = aten::relu(%x\n  return (%r)");
    QVERIFY(preview.wait(2000));
    QVERIFY2(status->text().startsWith("The edited rule: pattern line 3"), qPrintable(status->text()));
    QVERIFY(!status->text().contains("match"));
    QVERIFY(!applyAll->isEnabled());
    QVERIFY(dock->shownRules().isEmpty());
    // Discard: the list rule replaces the edits and is the one shown and applied.
    discard = true;
    dock->selectRule("fold-conv-bn");
    QCOMPARE(asked.size(), 2);
    QCOMPARE(dock->selectedRule(), QStringLiteral("fold-conv-bn"));
    QVERIFY(!editor->modified());
    QCOMPARE(dock->shownRules().size(), 1);
    QCOMPARE(dock->shownRules().front().id, QStringLiteral("fold-conv-bn"));
    QVERIFY(applyAll->isEnabled());
  }

  // Apply pressed right after typing (before typing pauses) applies the typed text, never the
  // rule shown before it, and the revision is named after the typed rule.
  void applyRightAfterTypingAppliesTheTypedText() {
    ui::MainWindow w;
    QVERIFY(w.openSample("cnn"));
    auto* dock = w.findChild<ui::RewriteDock*>("rewriteDock");
    auto* editor = dock->editor();
    auto* applyAll = dock->findChild<QPushButton*>("applyRule");
    auto* doc = w.controller()->document();
    dock->selectRule("fold-conv-bn");
    QVERIFY(dock->matchCount("fold-conv-bn") >= 1);
    QVERIFY(applyAll->isEnabled());
    const int relus = int(doc->current()->irText().count("aten::relu("));
    QVERIFY(relus >= 1);
    editor->findChild<QLineEdit*>("ruleId")->setText("typed-now");
    editor->findChild<QPlainTextEdit*>("replacement")
        ->setPlainText("graph(%x):\n  %z : int = prim::Constant[value=0]()\n  %r = aten::clamp_min(%x, %z)\n  return (%r)");
    editor->findChild<QPlainTextEdit*>("pattern")->setPlainText("graph(%x):\n  %r = aten::relu(%x)\n  return (%r)");
    // No event loop ran: the check has not come back, yet the fold is no longer what Apply applies.
    QVERIFY(editor->pending());
    QVERIFY(dock->shownRules().isEmpty());
    QVERIFY(applyAll->isEnabled());
    const int before = doc->count();
    applyAll->click();
    QCOMPARE(doc->count(), before + 1);
    QCOMPARE(doc->current()->name(), QStringLiteral("typed-now"));
    QVERIFY(doc->current()->irText().contains("aten::batch_norm"));  // not the fold
    QCOMPARE(doc->current()->irText().count("aten::clamp_min("), relus);
    // The menu's Apply All does the same for text typed a moment ago.
    editor->findChild<QLineEdit*>("ruleId")->setText("typed-back");
    editor->findChild<QPlainTextEdit*>("pattern")
        ->setPlainText("graph(%x):\n  %z : int = prim::Constant[value=0]()\n  %r = aten::clamp_min(%x, %z)\n  return (%r)");
    editor->findChild<QPlainTextEdit*>("replacement")->setPlainText("graph(%x):\n  %r = aten::relu(%x)\n  return (%r)");
    w.findChild<QAction*>("applyAllAction")->trigger();
    QCOMPARE(doc->count(), before + 2);
    QCOMPARE(doc->current()->name(), QStringLiteral("typed-back"));
    QCOMPARE(doc->current()->irText().count("aten::relu("), relus);
  }

  // The same for a Python rule: Apply waits for the compile of the text typed, then applies it.
  void applyRightAfterTypingPythonWaitsForItsCompile() {
    ui::MainWindow w;
    QVERIFY(w.openSample("mlp"));
    auto* dock = w.findChild<ui::RewriteDock*>("rewriteDock");
    auto* editor = dock->editor();
    auto* doc = w.controller()->document();
    editor->findChild<QComboBox*>("ruleLanguage")->setCurrentIndex(1);  // the relu->clamp_min template
    QTRY_VERIFY_WITH_TIMEOUT(!editor->busy() && !editor->pending(), 60000);
    QVERIFY(editor->matchCount() >= 1);
    editor->findChild<QPlainTextEdit*>("pythonSource")
        ->setPlainText("import torch\n\n\ndef pattern(x):\n    return torch.relu(x)\n\n\n"
                       "def replacement(x):\n    return torch.clamp(x, min=0.0)\n");
    const int before = doc->count();
    QVERIFY(dock->findChild<QPushButton*>("applyRule")->isEnabled());
    const QString said = dock->applyShownRule();
    QVERIFY2(said.startsWith("Compiling the edited rule"), qPrintable(said));
    QCOMPARE(doc->count(), before);
    QTRY_COMPARE_WITH_TIMEOUT(doc->count(), before + 1, 90000);
    QVERIFY(editor->rule());
    QCOMPARE(doc->current()->name(), editor->rule()->id);
    QVERIFY2(doc->current()->irText().contains("aten::clamp("), qPrintable(doc->current()->irText()));
    QVERIFY(!doc->current()->irText().contains("aten::clamp_min("));  // not the template
  }

  // A rewrite that changes nothing records no revision and leaves the document unmodified.
  void noRevisionWithoutAChange() {
    ui::MainWindow w;
    QVERIFY(w.openSample("cnn"));
    auto* dock = w.findChild<ui::RewriteDock*>("rewriteDock");
    auto* doc = w.controller()->document();
    QCOMPARE(dock->matchCount("silu-decompose"), 0);
    QVERIFY(!w.controller()->isModified());
    const QString said = dock->applyRules({"silu-decompose"});
    QVERIFY2(said.startsWith("Nothing to rewrite"), qPrintable(said));
    QCOMPARE(doc->count(), 1);
    QVERIFY(!w.controller()->isModified());
    QVERIFY(!w.isWindowModified());
    dock->selectRule("silu-decompose");
    QVERIFY(!dock->findChild<QPushButton*>("applyRule")->isEnabled());
    QVERIFY(!dock->findChild<QPushButton*>("applyMatch")->isEnabled());
  }

  void mainWindowHasTheDock() {
    ui::MainWindow w;
    QVERIFY(w.findChild<QDockWidget*>("rewritesDock"));
    QVERIFY(w.openSample("cnn"));
    auto* dock = w.findChild<ui::RewriteDock*>("rewriteDock");
    QVERIFY(dock->matchCount("fold-conv-bn") >= 1);
  }

  // A Python rule typed into the editor is compiled off the GUI thread once typing pauses (the
  // GUI answers meanwhile), and previews as many matches as its text twin finds on the same
  // model; an edit made while a compile runs makes that compile's result stale (never shown).
  void pythonEditorPreviewsAsYouType() {
    auto loaded = core::io::loadSample("mlp");
    QVERIFY(loaded.ok());
    const auto library = core::rewrite::RuleLibrary::load();
    const int text = core::rewrite::previewMatches(*loaded.document->current(), *library.find("fuse-linear-relu")).matches;
    QVERIFY(text >= 1);
    QFile twin(":/rules/python/fuse_linear_relu.py");
    QVERIFY(twin.open(QIODevice::ReadOnly));
    const QString source = QString::fromUtf8(twin.readAll());

    ui::RuleEditor editor;
    editor.setRevision(loaded.document->current());
    editor.findChild<QComboBox*>("ruleLanguage")->setCurrentIndex(1);
    QCOMPARE(editor.language(), ui::RuleEditor::Language::Python);
    QTRY_VERIFY_WITH_TIMEOUT(!editor.busy(), 60000);  // the template compiles
    auto* python = editor.findChild<QPlainTextEdit*>("pythonSource");
    QVERIFY(python && python->isVisibleTo(&editor));
    QVERIFY(!editor.findChild<QPlainTextEdit*>("pattern")->isVisibleTo(&editor));
    QSignalSpy checked(&editor, &ui::RuleEditor::checked);
    QSignalSpy preview(&editor, &ui::RuleEditor::previewChanged);
    // First a broken version; while it compiles, the good one is typed over it.
    python->setPlainText(source + "\nRULES.append(Rule(pattern, replacement, name='second', condition='%x rank'))\n");
    QTRY_VERIFY_WITH_TIMEOUT(editor.busy(), 5000);
    QVERIFY2(editor.status().contains("Compiling"), qPrintable(editor.status()));
    QElapsedTimer typing;
    typing.start();
    python->selectAll();
    QTest::keyClicks(python, "# typing while Python runs");
    python->setPlainText(source);
    QVERIFY2(typing.elapsed() < 500, qPrintable(QString::number(typing.elapsed())));  // the GUI did not wait for Python
    QTRY_VERIFY_WITH_TIMEOUT(preview.size() >= 1 && !editor.busy(), 90000);
    for (const auto& c : checked) QVERIFY2(c[1].toString().isEmpty(), qPrintable(c[1].toString()));  // the broken one never showed
    QCOMPARE(editor.matchCount(), text);
    QCOMPARE(editor.report().sites.size(), text);
    QVERIFY(editor.rule() && editor.rule()->replacement.contains("aten::_addmm_activation"));
    QVERIFY2(editor.status().contains("TorchScript"), qPrintable(editor.status()));
  }

  // A broken Python rule shows the rule file's line, and that line is marked in the editor.
  void pythonEditorShowsTheLine() {
    auto loaded = core::io::loadSample("mlp");
    ui::RuleEditor editor;
    editor.setRevision(loaded.document->current());
    editor.setPythonText("import torch\n\n\ndef pattern(x):\n    return torch.relu(x\n\n\ndef replacement(x):\n    return x\n",
                         "broken.py");
    QTRY_VERIFY_WITH_TIMEOUT(!editor.busy(), 60000);
    QVERIFY2(editor.status().startsWith("line 5: syntax error") || editor.status().startsWith("line 8: syntax error"),
             qPrintable(editor.status()));
    QCOMPARE(editor.matchCount(), -1);
    const auto marks = editor.findChild<QPlainTextEdit*>("pythonSource")->extraSelections();
    QCOMPARE(marks.size(), 1);
    QCOMPARE(marks[0].cursor.blockNumber() + 1, editor.status().mid(5, 1).toInt());
    QVERIFY(editor.save().isEmpty());  // not saved while it does not compile
    // A pattern that does not trace: its line too.
    editor.setPythonText("import torch\n\n\ndef pattern(x):\n    return torch.relu(x).nonexistent()\n\n\n"
                         "def replacement(x):\n    return x\n", "untraceable.py");
    QTRY_VERIFY_WITH_TIMEOUT(!editor.busy(), 60000);
    QVERIFY2(editor.status().startsWith("line 5:"), qPrintable(editor.status()));
  }

  // The Python twins are in the dock's list; choosing one compiles it (off the GUI thread) and
  // shows the text twin's matches; applying it by id rewrites them; Open Rule takes a .py file.
  void dockListsAndAppliesPythonTwins() {
    auto loaded = core::io::loadSample("mlp");
    QVERIFY(loaded.ok());
    ui::RewriteDock dock;
    dock.setDocument(loaded.document.get());
    graft::core::edit::Session session(*loaded.document);
    dock.setCommitter([&](const QVector<core::rewrite::Step>& steps) { return session.applyRewrite(steps); });
    QVERIFY(dock.ruleIds().contains("python:fuse-linear-relu"));
    QVERIFY(dock.ruleIds().contains("fuse-linear-relu"));
    const int text = dock.matchCount("fuse-linear-relu");
    QVERIFY(text >= 1);
    QSignalSpy selected(&dock, &ui::RewriteDock::ruleSelected);
    dock.selectRule("python:fuse-linear-relu");
    QCOMPARE(dock.editor()->language(), ui::RuleEditor::Language::Python);
    QTRY_VERIFY_WITH_TIMEOUT(!selected.isEmpty() && selected.last()[1].toInt() >= 0, 60000);
    QCOMPARE(selected.last()[0].toString(), QStringLiteral("python:fuse-linear-relu"));
    QCOMPARE(selected.last()[1].toInt(), text);
    QCOMPARE(dock.shownMatches().size(), text);
    QCOMPARE(dock.matchCount("python:fuse-linear-relu"), text);
    // Apply this match: the compiled rule that matched there rewrites that site alone.
    int before = loaded.document->count();
    const QString one = dock.applyCurrentMatch();
    QVERIFY2(one.startsWith("1 rewrite"), qPrintable(one));
    QCOMPARE(loaded.document->count(), before + 1);
    QCOMPARE(loaded.document->current()->irText().count("aten::_addmm_activation("), 1);
    loaded.document->undo();
    before = loaded.document->count();
    const QString said = dock.applyRules({"python:fuse-linear-relu"});
    QVERIFY2(said.startsWith(QString::number(text)), qPrintable(said));
    QCOMPARE(loaded.document->count(), before + 1);
    QVERIFY(loaded.document->current()->irText().contains("_addmm_activation"));
    // Open Rule… reads a .py file into the Python form.
    QTemporaryDir dir;
    QFile file(dir.filePath("relu_clamp.py"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("import torch\n\n\ndef pattern(x):\n    return torch.relu(x)\n\n\ndef replacement(x):\n    return torch.clamp_min(x, 0)\n");
    file.close();
    dock.editor()->setRuleText(QString());  // back to IR first
    QCOMPARE(dock.editor()->language(), ui::RuleEditor::Language::Ir);
    QVERIFY(dock.editor()->openRuleFile(file.fileName()));
    QCOMPARE(dock.editor()->language(), ui::RuleEditor::Language::Python);
    QVERIFY(dock.editor()->pythonText().contains("clamp_min"));
  }

  // "… as Python" writes the selected conv → batch_norm as torch.ops.aten calls; compiled in the
  // editor, it previews the same 13 sites the IR draft does.
  void newPythonRuleFromSelection() {
    ui::MainWindow w;
    QVERIFY(showModel(w, "resnet18.pt"));
    const auto conv = nodeAt(w.view(), "layer1.0.conv1", "aten::_convolution");
    const auto bn = nodeAt(w.view(), "layer1.0.bn1", "aten::batch_norm");
    QVERIFY(conv && bn);
    auto* dock = w.findChild<ui::RewriteDock*>("rewriteDock");
    dock->setSelection({conv, bn});
    const QString said = dock->newPythonRuleFromSelection();
    QVERIFY2(said.startsWith("Drafted a Python pattern"), qPrintable(said));
    auto* editor = dock->editor();
    QCOMPARE(editor->language(), ui::RuleEditor::Language::Python);
    QVERIFY2(editor->pythonText().contains("torch.ops.aten._convolution.default(") &&
                 editor->pythonText().contains("torch.ops.aten.batch_norm.default("),
             qPrintable(editor->pythonText()));
    QTRY_VERIFY_WITH_TIMEOUT(!editor->busy(), 60000);
    QVERIFY2(editor->matchCount() == 13, qPrintable(editor->status() + "\n" + editor->pythonText()));
    QCOMPARE(dock->shownMatches().size(), 13);
    bool holdsSelected = false;
    for (const auto& site : dock->shownMatches()) holdsSelected = holdsSelected || site.nodes.contains(bn);
    QVERIFY(holdsSelected);
  }

  // The Rewrites dock editing a Python rule in the main window, its preview outlined on the
  // canvas: the editor and the matches line are visible in the docked dock (for
  // docs/screenshots/python-rule-editor.png, taken under Xvfb at 1366x768).
  void pythonRuleEditorScreenshot() {
    ui::MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openSample("mlp"));
    QVERIFY(waitLayout(w.canvas()));
    auto* dockWidget = w.findChild<QDockWidget*>("rewritesDock");
    dockWidget->show();
    dockWidget->raise();
    w.findChild<QDockWidget*>("inspectorDock")->hide();  // the right column for the Rewrites dock
    auto* dock = w.findChild<ui::RewriteDock*>("rewriteDock");
    auto* editor = dock->editor();
    editor->findChild<QComboBox*>("ruleLanguage")->setCurrentIndex(1);
    QTRY_VERIFY_WITH_TIMEOUT(!editor->busy(), 60000);
    QSignalSpy preview(editor, &ui::RuleEditor::previewChanged);
    editor->findChild<QLineEdit*>("ruleId")->setText("relu-after-linear");
    auto* python = editor->findChild<QPlainTextEdit*>("pythonSource");
    python->setPlainText(
        "\"\"\"relu after a linear layer, as clamp_min.\"\"\"\n"
        "import torch\n"
        "import torch.nn.functional as F\n"
        "\n"
        "\n"
        "def pattern(x, w, b):  # ranks from the model\n"
        "    return F.relu(F.linear(x, w, b))\n"
        "\n"
        "\n"
        "def replacement(x, w, b):\n"
        "    return torch.clamp_min(F.linear(x, w, b), 0.0)\n");
    QTRY_VERIFY_WITH_TIMEOUT(preview.size() >= 1 && !editor->busy(), 90000);
    QCOMPARE(editor->matchCount(), 2);  // fc1 → relu and fc2 → relu
    QCOMPARE(dock->shownMatches().size(), 2);
    QCOMPARE(w.canvas()->graphScene()->marks().size(), 4);
    QVERIFY(waitLayout(w.canvas()));
    QTest::qWait(200);
    QApplication::processEvents();
    const QString dir = graft::test::testdata("screenshots");
    QDir().mkpath(dir);
    QVERIFY(w.grab().save(dir + "/python-rule-editor.png"));
    // What the picture must show: the source, the status and the matches line, unclipped.
    for (QWidget* part : {static_cast<QWidget*>(python), static_cast<QWidget*>(editor->findChild<QLabel*>("ruleStatus")),
                          static_cast<QWidget*>(dock->findChild<QLabel*>("ruleMatches"))}) {
      QVERIFY(part->isVisible());
      const QRect shown = part->visibleRegion().boundingRect();
      QVERIFY2(shown.height() >= std::min(part->height(), 40), qPrintable(part->objectName()));
    }
    QVERIFY(python->viewport()->height() >= 8 * python->fontMetrics().lineSpacing());
  }

  // Python is highlighted by its own highlighter: keywords, strings (across lines), comments,
  // numbers, decorators and defined names each in their format.
  void pythonHighlighter() {
    ui::RuleEditor editor;
    editor.setPythonText("\"\"\"doc\nstring\"\"\"\n@torch.no_grad()\ndef pattern(x):  # why\n    return x * 2.5\n", "h.py");
    auto* doc = editor.findChild<QPlainTextEdit*>("pythonSource")->document();
    const auto formatAt = [&](int block, int column) {
      for (const auto& r : doc->findBlockByNumber(block).layout()->formats())
        if (column >= r.start && column < r.start + r.length) return r.format.foreground().color();
      return QColor();
    };
    const QColor string = formatAt(0, 0);
    QVERIFY(string.isValid());
    QCOMPARE(formatAt(1, 0), string);              // the docstring's second line
    const QColor decorator = formatAt(2, 0);
    QVERIFY(decorator.isValid() && decorator != string);
    const QColor keyword = formatAt(3, 0);          // def
    const QColor name = formatAt(3, 4);             // pattern
    const QColor comment = formatAt(3, 18);         // # why
    const QColor number = formatAt(4, 15);          // 2.5
    QVERIFY(keyword.isValid() && name.isValid() && comment.isValid() && number.isValid());
    QCOMPARE(QSet<QRgb>({string.rgb(), keyword.rgb(), comment.rgb(), number.rgb()}).size(), 4);
    QCOMPARE(formatAt(4, 4), keyword);              // return
    QVERIFY(!formatAt(4, 11).isValid());            // x: plain
  }

 private:
  QTemporaryDir userDir_;
};

QTEST_MAIN(TstRewriteUi)
#include "tst_rewrite_ui.moc"
