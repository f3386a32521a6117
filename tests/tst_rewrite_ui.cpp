// The Rewrites dock and rule editor: match counts, live parse errors, Apply all as one undo step,
// saving into the user rule folder.
#include "test_support.h"

#include "core/io/load.h"
#include "core/model/document.h"
#include "core/rewrite/library.h"
#include "ui/main_window.h"
#include "ui/rewrite/rewrite_dock.h"
#include "ui/rewrite/rule_editor.h"

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QMenuBar>
#include <QtWidgets/QPlainTextEdit>

using namespace graft;

class TstRewriteUi : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { qputenv("GRAFT_RULES_DIR", userDir_.path().toUtf8()); }

  void dockCountsAndAppliesAsOneUndoStep() {
    auto loaded = core::io::loadSample("cnn");
    QVERIFY(loaded.ok());
    ui::RewriteDock dock;
    dock.setDocument(loaded.document.get());
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
