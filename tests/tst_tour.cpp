// Guided tours: the tour format and its error messages, the done-conditions, every built-in tour
// replayed headless with "Do it for me" (each step's condition must hold), the numbers the steps
// state checked against runs made here through core alone, a user tour from disk, and
// `graft --tour ID --autoplay` exit codes.
#include "core/edit/session.h"
#include "core/edit/edit.h"
#include "core/io/load.h"
#include "core/io/save.h"
#include "core/samples/samples.h"
#include "core/model/document.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/library.h"
#include "core/rewrite/python_rules.h"
#include "core/run/compare_job.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "core/tour/tour_library.h"
#include "core/tour/tour_state.h"
#include "gui_support.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_items.h"
#include "ui/canvas/revision_animation.h"
#include "ui/compare_dock.h"
#include "ui/document/document_controller.h"
#include "ui/edit_actions.h"
#include "ui/unsaved_changes.h"
#include "ui/start_page.h"
#include "ui/tour/tour_autoplay.h"
#include "ui/tour/tour_driver.h"
#include "ui/tour/tour_panel.h"

#include <QtCore/QDir>
#include <QtCore/QJsonArray>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include "ui/render/diagram_painter.h"
#include "ui/presentation.h"
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QMenu>
#include <QtWidgets/QLabel>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QScrollBar>
#include <QtWidgets/QTextBrowser>

using namespace graft;
using core::tour::parseTour;

namespace {

QString sourceFile(const QString& rel) { return QDir(qEnvironmentVariable("GRAFT_SOURCE_DIR")).filePath(rel); }

// A small valid tour on the MLP sample; `extraStep` is appended to its steps as JSON text.
QByteArray userTour(const QString& extraStep = {}) {
  QString text = QStringLiteral(R"({
  "format": "graft-tour",
  "id": "my-tour",
  "title": "My tour",
  "steps": [
    {
      "title": "Open the MLP",
      "text": "<p>Open it.</p>",
      "actions": [{"do": "open_sample", "sample": "mlp"}],
      "done": {"sample": "mlp"}
    },
    {
      "title": "Select the head",
      "text": ["<p>The last linear.</p>", "<p>Two lines.</p>"],
      "highlight": {"docks": ["inspector"], "nodes": [{"op": "aten::linear", "module": "head"}]},
      "actions": [{"do": "select", "op": "aten::linear", "module": "head"}],
      "done": {"selected_op": "aten::linear", "selected_module": "head"}
    }%1
  ]
}
)");
  return text.arg(extraStep.isEmpty() ? QString() : QStringLiteral(",\n") + extraStep).toUtf8();
}

// Replays `tour` in `window` with "Do it for me" on every step; returns the autoplay's message
// and sets `code`.
QString autoplay(ui::MainWindow& window, const core::tour::Tour& tour, int* code, const QString& screenshots = {}) {
  window.startTour(tour);
  ui::TourAutoplay player(window.parts(), screenshots);
  QSignalSpy done(&player, &ui::TourAutoplay::finished);
  player.start();
  if (done.isEmpty() && !done.wait(300000)) return QStringLiteral("timed out");
  *code = player.exitCode();
  return player.message();
}

}  // namespace

class TstTour : public QObject {
  Q_OBJECT
  QTemporaryDir sessions_, rules_;

 private Q_SLOTS:
  void initTestCase() {
    qputenv("GRAFT_SESSION_DIR", sessions_.path().toUtf8());
    qputenv("GRAFT_RULES_DIR", rules_.path().toUtf8());  // built-in rules only
  }

  void builtinToursParse() {
    QVector<core::tour::TourError> problems;
    const auto tours = core::tour::builtinTours(&problems);
    for (const auto& p : problems) qWarning() << p.toString();
    QVERIFY(problems.isEmpty());
    QStringList ids;
    for (const auto& t : tours) ids << t.id;
    QCOMPARE(ids, (QStringList{"fx-to-graft", "fold-batchnorm", "find-divergence"}));
  }

  void malformed_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("message");
    QTest::newRow("syntax: missing comma") << QByteArray("{\n  \"format\": \"graft-tour\"\n  \"id\": \"x\"\n}\n") << 3 << 4
                                           << "JSON syntax error: unterminated object";  // QJsonParseError's offset
    QByteArray unknownAction = userTour();
    unknownAction.replace("\"do\": \"select\"", "\"do\": \"selekt\"");
    QTest::newRow("unknown action") << unknownAction << 16 << 26 << "unknown action \"selekt\"";
    QByteArray badKey = userTour();
    badKey.replace("\"selected_module\"", "\"selected_modul\"");
    QTest::newRow("unknown condition") << badKey << 17 << 47 << "unknown key \"selected_modul\" in a done condition";
    QByteArray noDone = userTour(QStringLiteral(R"(    {
      "title": "No condition",
      "text": "x"
    })"));
    QTest::newRow("step without done") << noDone << 19 << 5 << "step \"No condition\" has no \"done\" condition";
    QByteArray badDock = userTour();
    badDock.replace("[\"inspector\"]", "[\"inspectr\"]");
    QTest::newRow("unknown dock") << badDock << 15 << 31 << "unknown dock \"inspectr\"";
    QByteArray missingArg = userTour();
    missingArg.replace("{\"do\": \"open_sample\", \"sample\": \"mlp\"}", "{\"do\": \"open_sample\"}");
    QTest::newRow("missing argument") << missingArg << 9 << 19 << "action \"open_sample\" needs \"sample\"";
  }
  void malformed() {
    QFETCH(QByteArray, text);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, message);
    const auto r = parseTour(text, "bad.json");
    QVERIFY(!r.ok());
    QVERIFY2(r.error.message.startsWith(message), qPrintable(r.error.toString()));
    QCOMPARE(r.error.line, line);
    QCOMPARE(r.error.column, column);
    QVERIFY(r.error.toString().startsWith(QStringLiteral("bad.json:%1:%2: ").arg(line).arg(column)));
  }

  // Help > Guided Tours lists the built-in tours and the start page (shown while no model is
  // open) offers them; either starts the tour in the Tour dock.
  void startingTours() {
    ui::MainWindow window;
    window.show();
    QVERIFY(window.parts().startPage->isVisible());
    auto* menu = window.findChild<QMenu*>("toursMenu");
    QVERIFY(menu);
    QStringList ids;
    for (auto* a : menu->actions()) ids << a->data().toString();
    QCOMPARE(ids, (QStringList{"fx-to-graft", "fold-batchnorm", "find-divergence"}));
    menu->actions()[1]->trigger();
    QVERIFY(window.parts().tourPanel->active());
    QCOMPARE(window.parts().tourPanel->tour().id, QStringLiteral("fold-batchnorm"));
    QVERIFY(window.findChild<QDockWidget*>("tourDock")->isVisible());
    auto* button = window.parts().startPage->findChild<QPushButton*>("startTour-find-divergence");
    QVERIFY(button);
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(window.parts().tourPanel->tour().id, QStringLiteral("find-divergence"));
    QCOMPARE(window.parts().tourPanel->stepIndex(), 0);
    // Opening a model replaces the start page with the canvas.
    window.parts().tourPanel->doItForMe();
    QTRY_VERIFY_WITH_TIMEOUT(window.controller()->document() != nullptr, 60000);
    QTRY_VERIFY(!window.parts().startPage->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(window.parts().tourPanel->stepMet(), 60000);
  }

  // Started from the menu over another model, a tour opens its own sample; over unsaved work it
  // asks first, and Cancel leaves the work and starts nothing.
  void tourOpensItsSampleOverAnotherModel() {
    ui::MainWindow window;
    QVERIFY(window.openSample("cnn"));
    const auto relu = core::tour::findNode(*window.view(), {QStringLiteral("aten::relu"), QString(), 0});
    QVERIFY(window.parts().edits->applyEdit(core::edit::ReplaceOp{relu, QStringLiteral("aten::gelu")}, false));
    QVERIFY(window.controller()->isModified());
    QStringList asked;
    ui::UnsavedAnswer answer = ui::UnsavedAnswer::Cancel;
    window.controller()->setUnsavedPrompt([&](const QString& name) {
      asked << name;
      return answer;
    });
    auto* menu = window.findChild<QMenu*>("toursMenu");
    menu->actions()[0]->trigger();  // fx-to-graft, on the MLP
    QCOMPARE(asked.size(), 1);
    QCOMPARE(window.controller()->document()->sampleName(), QStringLiteral("cnn"));
    QVERIFY(!window.parts().tourPanel->active());
    answer = ui::UnsavedAnswer::Discard;
    menu->actions()[0]->trigger();
    QCOMPARE(asked.size(), 2);
    QCOMPARE(window.controller()->document()->sampleName(), QStringLiteral("mlp"));
    QVERIFY(window.parts().tourPanel->active());
    QTRY_VERIFY_WITH_TIMEOUT(window.parts().tourPanel->stepMet(), 60000);  // "7 ops", not the cnn's count
    // The sample open and untouched: starting again asks nothing and opens nothing.
    const auto* doc = window.controller()->document();
    menu->actions()[0]->trigger();
    QCOMPARE(asked.size(), 2);
    QCOMPARE(window.controller()->document(), doc);
  }

  // Each rule a step applies is named by the title the Rewrites list shows, not by its id.
  void stepsNameRulesByTheirListTitle() {
    const auto library = core::rewrite::RuleLibrary::load();
    int named = 0;
    for (const auto& tour : core::tour::builtinTours())
      for (const auto& step : tour.steps)
        for (const auto& a : step.actions) {
          if (a.kind != "apply_rule") continue;
          const QString id = a.text("rule");
          QString title;
          if (const auto* r = library.find(id)) title = r->title;
          else if (const auto* py = library.findPython(id)) title = py->title + QStringLiteral(" (Python)");
          QVERIFY2(!title.isEmpty(), qPrintable(id));
          QVERIFY2(step.text.contains(title.toHtmlEscaped()), qPrintable(QStringLiteral("%1: \"%2\"").arg(step.title, title)));
          ++named;
        }
    QVERIFY(named >= 3);
  }

  // A malformed tour opened in the GUI is refused with its line and column, and nothing starts.
  void malformedInWindow() {
    QTemporaryDir dir;
    const QString path = dir.filePath("broken.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\n  \"format\": \"graft-tour\",\n  \"id\": \"x\",\n  \"title\": \"t\",\n  \"steps\": [}\n");
    f.close();
    core::tour::TourError error;
    QVERIFY(!core::tour::resolveTour(path, &error));
    QCOMPARE(error.line, 5);
    QVERIFY2(error.toString().startsWith(path + ":5:"), qPrintable(error.toString()));
    ui::MainWindow window;
    QVERIFY(!window.startTour(path));
    QVERIFY(!window.parts().tourPanel->active());
  }

  void conditions() {
    core::tour::State s;
    core::tour::Condition c;
    c.keys = QJsonObject{{"sample", "mlp"}, {"ops", 7}};
    auto v = core::tour::evaluate(c, s);
    QVERIFY(!v.met);
    QVERIFY(v.unmet.contains("no model is open"));
    s.documentOpen = true;
    s.sample = "mlp";
    s.ops = 7;
    QVERIFY(core::tour::evaluate(c, s).met);
    c.keys = QJsonObject{{"op_count", QJsonObject{{"aten::linear", 2}}}, {"has_op", QJsonArray{"aten::matmul"}},
                         {"compare", "equal"}};
    s.histogram = {{"aten::linear", 3}};
    v = core::tour::evaluate(c, s);
    QCOMPARE(v.unmet.size(), 3);
    QVERIFY(v.unmet[0].contains("2 × aten::linear expected, the current revision has 3") ||
            v.unmet.join(";").contains("2 × aten::linear expected, the current revision has 3"));
    s.histogram = {{"aten::linear", 2}, {"aten::matmul", 1}};
    s.compare = core::tour::State::Compare::Equal;
    QVERIFY(core::tour::evaluate(c, s).met);
    s.compare = core::tour::State::Compare::Differs;
    QVERIFY(!core::tour::evaluate(c, s).met);
  }

  // Every built-in tour, replayed in a window with "Do it for me": each step's condition holds.
  void replayBuiltin_data() {
    QTest::addColumn<QString>("id");
    for (const auto& t : core::tour::builtinTours()) QTest::newRow(qPrintable(t.id)) << t.id;
  }
  void replayBuiltin() {
    QFETCH(QString, id);
    const auto tour = core::tour::resolveTour(id, nullptr);
    QVERIFY(tour);
    ui::MainWindow window;
    window.resize(1366, 768);
    window.show();
    int code = -1;
    const QString message = autoplay(window, *tour, &code);
    QVERIFY2(code == 0, qPrintable(message));
    QCOMPARE(window.parts().tourPanel->stepIndex(), int(tour->steps.size()) - 1);
    // The step that compares names the verdict the Compare dock then showed ("Exact — …").
    int compares = 0;
    for (const auto& step : tour->steps)
      for (const auto& a : step.actions)
        if (a.kind == "compare") {
          ++compares;
          const QString verdict = window.compareDock()->verdictText();
          QVERIFY2(ui::verdictMismatch(step, verdict).isEmpty(), qPrintable(step.title + ": " + verdict));
          QVERIFY2(step.text.contains(verdict.section(QStringLiteral(" — "), 0, 0)), qPrintable(verdict));
        }
    QVERIFY(compares <= 1);  // one comparison per tour: the last verdict shown is that step's
    // "Do it for me" saved a copy, not the user's work: the document is still modified.
    if (!window.parts().tourDriver->lastSavedPath().isEmpty()) QVERIFY(window.controller()->isModified());
    // A tour that saved its revision: stock PyTorch loads the file and it computes what the
    // original does (check_rewrite.py: torch.jit.load both, same random inputs).
    if (const QString saved = window.parts().tourDriver->lastSavedPath(); !saved.isEmpty()) {
      QTemporaryDir dir;
      const QString original = dir.filePath("original.pt");
      const auto* doc = window.controller()->document();
      QVERIFY(core::io::saveAs(*doc, doc->original(), original).ok);
      const auto shape = core::samples::find(doc->sampleName())->inputShape;
      QStringList dims;
      for (auto d : shape) dims << QString::number(d);
      const auto py = test::runPython(sourceFile("tests/python/check_rewrite.py"), {original, saved, dims.join('x')});
      QVERIFY2(py.exitCode == 0, py.out + py.err);
      const auto ops = py.json().value("ops").toObject();
      QCOMPARE(ops.value("aten::_addmm_activation").toInt(), 1);
      QCOMPARE(ops.value("aten::matmul").toInt(), 0);  // fused with its add and relu
    }
    // The fx tour's fusion step is a Python rule (fuse-matmul-add-relu, compiled from
    // resources/rules/python/fuse_matmul_add_relu.py), and it leaves fewer ops than before.
    if (id == QLatin1String("fx-to-graft")) {
      const auto* doc = window.controller()->document();
      QStringList names;
      int fused = -1;
      for (int i = 0; i < doc->count(); ++i) {
        names << doc->revision(i)->name();
        if (names.back() == QLatin1String("fuse-matmul-add-relu")) fused = i;
      }
      QVERIFY2(fused > 0, qPrintable(names.join(", ")));
      QVERIFY(core::rewrite::opCount(*doc->revision(fused)) < core::rewrite::opCount(*doc->revision(doc->parentOf(fused))));
    }
  }

  // The numbers the steps state (op counts, the comparison's verdict), checked against a replay
  // made here with core alone: the sample loaded, the rules and edits applied, compared.
  void statedNumbers_data() { replayBuiltin_data(); }
  void statedNumbers() {
    QFETCH(QString, id);
    const auto tour = core::tour::resolveTour(id, nullptr);
    QVERIFY(tour);
    const auto library = core::rewrite::RuleLibrary::load();
    std::unique_ptr<core::model::Document> doc;
    std::optional<core::run::CompareSummary> compared;
    int checked = 0;
    for (const auto& step : tour->steps) {
      for (const auto& a : step.actions) {
        const core::tour::NodeRef ref{a.text("op"), a.text("module"), 0};
        if (a.kind == "open_sample") {
          auto loaded = core::io::loadSample(a.text("sample"));
          QVERIFY(loaded.ok());
          doc = std::move(loaded.document);
          compared.reset();
        } else if (a.kind == "apply_rule") {
          std::optional<core::rewrite::Rule> rule = library.resolve(a.text("rule"), nullptr);
          if (const auto* py = library.findPython(a.text("rule"))) {  // a Python rule, compiled for the model
            const auto set = core::rewrite::compilePythonRules(py->path, core::rewrite::siteRanks(*doc));
            QVERIFY2(set.ok(), qPrintable(set.error.toString()));
            QCOMPARE(set.forFormat(doc->format()).size(), 1);
            rule = set.forFormat(doc->format()).first();
          }
          QVERIFY(rule);
          auto s = core::rewrite::Step::ofRule(*rule);
          const auto view = core::model::GraphView::build(*doc->current());
          if (!ref.op.isEmpty()) s.onlyAt = core::tour::findNode(view, ref);
          const auto r = core::rewrite::applySteps(*doc->current(), {s}, doc->ids());
          QVERIFY2(r.ok(), qPrintable(r.error));
          graft::core::edit::Session(*doc).commitBuilt(r.revision);
        } else if (a.kind == "replace_op") {
          const auto view = core::model::GraphView::build(*doc->current());
          const auto r = core::edit::apply(core::edit::ReplaceOp{core::tour::findNode(view, ref), a.text("to")}, *doc->current(), doc->ids());
          QVERIFY2(r.ok(), qPrintable(r.error));
          graft::core::edit::Session(*doc).commitBuilt(r.revision);
        } else if (a.kind == "compare") {
          core::run::CompareRequest req;
          req.a = doc->original();
          req.b = doc->current();
          auto in = core::io::inputsFor(*doc, {}, 0);
          QVERIFY2(in.inputs, qPrintable(in.error));
          req.inputs = std::make_shared<const core::model::InputSet>(std::move(*in.inputs));
          compared = core::run::runCompare(req);
          QVERIFY2(compared->ok, qPrintable(compared->error));
        }
      }
      const auto& want = step.done.keys;
      const int ops = core::rewrite::opCount(*doc->current());
      const auto hist = core::model::GraphView::build(*doc->current()).histogram;
      if (want.contains("ops")) {
        QCOMPARE(ops, want.value("ops").toInt());
        // The text says the number it checks ("7 ops", "23 before, 17 after").
        QVERIFY2(step.text.contains(QString::number(ops)), qPrintable(step.title));
        ++checked;
      }
      const auto counts = want.value("op_count").toObject();
      for (auto it = counts.begin(); it != counts.end(); ++it) {
        QCOMPARE(hist.value(it.key()), it.value().toInt());
        ++checked;
      }
      if (want.contains("compare")) {
        QVERIFY(compared);
        QCOMPARE(compared->equal, want.value("compare").toString() == "equal");
        // In the app's verdict words (the autoplay checks the very verdict the window shows).
        const bool named = compared->equal ? step.text.contains("Exact") || step.text.contains("Equal within rounding")
                                           : step.text.contains("Different");
        QVERIFY2(named && !step.text.contains("equal within tolerance"), qPrintable(step.title));
        ++checked;
      }
      if (want.contains("first_divergence_op")) {
        QVERIFY(compared);
        const QString op = want.value("first_divergence_op").toString();
        // An empty op states that nothing diverges, intermediates included.
        if (op.isEmpty()) {
          QVERIFY(!compared->firstDivergence && !compared->intermediateDivergence);
        } else {
          QVERIFY(compared->firstDivergence);
          const auto view = core::model::GraphView::build(*doc->current());
          QCOMPARE(view.node(compared->firstDivergence->node)->kind, op);
        }
        ++checked;
      }
    }
    QVERIFY(checked >= 3);
  }

  // A tour written by a user, read from disk and replayed; one whose condition cannot hold fails
  // naming its step.
  void userTourFromDisk() {
    QTemporaryDir dir;
    const QString path = dir.filePath("my-tour.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(userTour());
    f.close();
    core::tour::TourError error;
    const auto tour = core::tour::resolveTour(path, &error);
    QVERIFY2(tour, qPrintable(error.toString()));
    QCOMPARE(tour->source, path);
    QCOMPARE(tour->steps.size(), 2);
    QCOMPARE(tour->steps[1].text, QStringLiteral("<p>The last linear.</p>\n<p>Two lines.</p>"));
    ui::MainWindow window;
    window.show();
    int code = -1;
    QString message = autoplay(window, *tour, &code);
    QVERIFY2(code == 0, qPrintable(message));
    QCOMPARE(window.view()->node(window.selectedNode())->modulePath, QStringLiteral("head"));
    // The highlighted node is outlined on the canvas in the tour's colour.
    const auto head = core::tour::findNode(*window.view(), {"aten::linear", "head", 0});
    QVERIFY(window.canvas()->graphScene()->markOf(head));

    auto impossible = *tour;
    impossible.steps[1].done.keys.insert("ops", 999);
    impossible.steps[1].title = "Impossible step";
    ui::MainWindow second;
    second.show();
    ui::TourAutoplay player(second.parts(), {});
    player.setStepTimeoutMs(1000);
    second.startTour(impossible);
    QSignalSpy done(&player, &ui::TourAutoplay::finished);
    player.start();
    QVERIFY(done.wait(60000));
    QCOMPARE(player.exitCode(), 1);
    QVERIFY2(player.message().contains("step 2/2 \"Impossible step\""), qPrintable(player.message()));
    QVERIFY2(player.message().contains("999 ops expected, the current revision has 7"), qPrintable(player.message()));
  }

  // Presentation mode: only the canvas and the Tour panel, larger fonts, and a rewrite animated
  // (kept nodes glide, removed ones fade out, added ones in) — then everything as it was.
  void presentationMode() {
    ui::MainWindow window;
    window.resize(1366, 768);
    window.show();
    QVERIFY(window.startTour(QStringLiteral("fx-to-graft")));
    QVERIFY(window.openSample("mlp") && test::waitLayout(window.canvas()));
    const double font = QApplication::font().pointSizeF();
    window.setPresentation(true);
    QCOMPARE(QApplication::font().pointSizeF(), font * 1.5);
    for (auto* dock : window.findChildren<QDockWidget*>())
      QCOMPARE(dock->isVisible(), dock->objectName() == "tourDock");
    // At 1366×768: the title above the body in size, the panel wide enough that the step's code
    // wraps rather than clips, the diagram refitted to the larger canvas.
    auto* title = window.parts().tourPanel->findChild<QLabel*>("tourStepTitle");
    auto* text = window.parts().tourPanel->findChild<QTextBrowser*>("tourText");
    QTRY_COMPARE(text->font().pointSizeF(), font * 1.5);  // the application font reaches widgets by event
    QTRY_VERIFY(title->font().pointSizeF() > text->font().pointSizeF());
    window.parts().tourPanel->goTo(1);  // "Find the Linear layers", with a loop in <pre>
    QTRY_VERIFY(window.findChild<QDockWidget*>("tourDock")->width() >= window.width() / 3);
    QCOMPARE(text->horizontalScrollBar()->maximum(), 0);
    // Fitted, but never below reading size: node labels at least 14 px on screen (a larger graph
    // is panned rather than shrunk to unreadable boxes).
    const double readable = ui::Presentation::kReadablePixels / ui::canvas::labelFont().pixelSize();
    const auto fitted = [&] {
      const double want = std::max(std::min(window.canvas()->fitZoom(), 1.5), readable);
      return window.canvas()->zoom() <= want + 1e-6 && window.canvas()->zoom() >= 0.95 * want;
    };
    QTRY_VERIFY2(fitted(),
                 qPrintable(QStringLiteral("zoom %1, fit %2").arg(window.canvas()->zoom()).arg(window.canvas()->fitZoom())));
    QVERIFY(window.canvas()->zoom() * ui::canvas::labelFont().pixelSize() >= 14 - 1e-6);
    if (qEnvironmentVariableIsSet("GRAFT_SCREENSHOT_DIR"))
      window.grab().save(QDir(qEnvironmentVariable("GRAFT_SCREENSHOT_DIR")).filePath("presentation-1366x768.png"));
    // The Compare dock a step points at (its verdict, the tensor view) stays when shown; any
    // other dock a step or a job shows while presenting goes again.
    auto* compareDock = window.findChild<QDockWidget*>("compareDock");
    compareDock->show();
    auto* historyDock = window.findChild<QDockWidget*>("historyDock");
    historyDock->show();
    QTRY_VERIFY(!historyDock->isVisible());
    QVERIFY(compareDock->isVisible());
    compareDock->hide();
    window.canvas()->expandAll();
    QVERIFY(test::waitLayout(window.canvas()));
    window.canvas()->fitToWindow();
    window.parts().tourPanel->goTo(2);  // "Replace a Linear by matmul + add", done here by hand
    const auto library = core::rewrite::RuleLibrary::load();
    const auto fc1 = core::tour::findNode(*window.view(), {"aten::linear", "fc1", 0});
    const auto r = window.controller()->applyRewrite({core::rewrite::Step::ofRuleAt(*library.find("linear-to-matmul-add"), fc1)});
    QVERIFY2(r.ok(), qPrintable(r.error));
    QVERIFY(test::waitLayout(window.canvas()));
    auto* animation = window.canvas()->animation();
    QVERIFY(animation);
    QCOMPARE(animation->removedCount(), 1);  // fc1's linear fades out
    QCOMPARE(animation->addedCount(), 3);    // t, matmul and add fade in
    QCOMPARE(animation->keptCount(), 6);
    // Half-way: a kept node below the rewrite is between its old and new place.
    animation->setProgress(0.5);
    const auto relu = core::tour::findNode(*window.view(), {"aten::relu", "act2", 0});
    auto* item = window.canvas()->graphScene()->nodeItem(relu);
    QVERIFY(item);
    QVERIFY2(item->pos().manhattanLength() > 5, "the relu below the rewrite should still be on its way");
    if (qEnvironmentVariableIsSet("GRAFT_SCREENSHOT_DIR"))  // for docs/screenshots
      window.grab().save(QDir(qEnvironmentVariable("GRAFT_SCREENSHOT_DIR")).filePath("tour-animation.png"));
    QSignalSpy finished(animation, &ui::canvas::RevisionAnimation::finished);
    QVERIFY(finished.wait(2000));
    QCOMPARE(item->pos(), QPointF(0, 0));  // home
    window.setPresentation(false);
    QCOMPARE(QApplication::font().pointSizeF(), font);
    QVERIFY(window.findChild<QDockWidget*>("inspectorDock")->isVisible());
  }

  // The real program: exit 0 with one PNG per step; exit 1 naming the step that failed.
  void autoplayExitCodes() {
    QTemporaryDir dir;
    QProcess gui;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("GRAFT_SESSION_DIR", sessions_.path());
    env.insert("GRAFT_RULES_DIR", rules_.path());
    env.insert("QT_QPA_PLATFORM", "offscreen");
    gui.setProcessEnvironment(env);
    const QString shots = dir.filePath("shots");
    gui.start(qEnvironmentVariable("GRAFT_GUI"), {"--tour", "find-divergence", "--autoplay", "--screenshot-dir", shots});
    QVERIFY(gui.waitForFinished(300000));
    QVERIFY2(gui.exitCode() == 0, gui.readAllStandardError().constData());
    const QString out = QString::fromUtf8(gui.readAllStandardOutput());
    QVERIFY2(out.contains("step 5/5 \"Look at the tensors\": ok"), qPrintable(out));
    const QStringList pngs = QDir(shots).entryList({"*.png"}, QDir::Files, QDir::Name);
    QCOMPARE(pngs, (QStringList{"step-01.png", "step-02.png", "step-03.png", "step-04.png", "step-05.png"}));
    for (const QString& png : pngs) QCOMPARE(QImage(QDir(shots).filePath(png)).size(), QSize(1366, 768));

    // A user tour whose last step cannot be met.
    const QString path = dir.filePath("impossible.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(userTour(QStringLiteral(R"({"title": "Never done", "text": "x", "done": {"ops": 999}})")));
    f.close();
    gui.start(qEnvironmentVariable("GRAFT_GUI"), {"--tour", path, "--autoplay"});
    QVERIFY(gui.waitForFinished(300000));
    QCOMPARE(gui.exitCode(), 1);
    const QString err = QString::fromUtf8(gui.readAllStandardError());
    QVERIFY2(err.contains("step 3/3 \"Never done\": condition not met: 999 ops expected"), qPrintable(err));

    // --autoplay without --tour, and a tour that does not exist, are usage errors.
    gui.start(qEnvironmentVariable("GRAFT_GUI"), {"--tour", "no-such-tour", "--autoplay"});
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitCode(), 2);
    QVERIFY(gui.readAllStandardError().contains("no built-in tour has this id"));
  }

  // Every built-in tour plays through in the real program started as a user starts it: without
  // GRAFT_PYTHON, so the fx tour's Python rule runs on the Python of the torch Graft runs on.
  void autoplayWithoutGraftPython_data() { replayBuiltin_data(); }
  void autoplayWithoutGraftPython() {
    QFETCH(QString, id);
    QProcess gui;
    auto env = QProcessEnvironment::systemEnvironment();
    env.remove("GRAFT_PYTHON");
    env.insert("GRAFT_SESSION_DIR", sessions_.path());
    env.insert("GRAFT_RULES_DIR", rules_.path());
    env.insert("QT_QPA_PLATFORM", "offscreen");
    gui.setProcessEnvironment(env);
    gui.start(qEnvironmentVariable("GRAFT_GUI"), {"--tour", id, "--autoplay"});
    QVERIFY(gui.waitForFinished(600000));
    QVERIFY2(gui.exitCode() == 0, gui.readAllStandardError().constData());
  }
};

QTEST_MAIN(TstTour)
#include "tst_tour.moc"
