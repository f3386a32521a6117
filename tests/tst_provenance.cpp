// Provenance: every change records which parent nodes each new or altered node derives from, the
// map composes across revisions and survives a save, and a per-node comparison pairs values
// through it, so a rewrite that keeps the model's function reports no divergence, and a real
// change is named exactly where it is. Real torchvision models and the samples, in both formats.
#include "core/edit/edit.h"
#include "core/edit/graph_diff.h"
#include "core/edit/session.h"
#include "core/io/load.h"
#include "core/io/save.h"
#include "core/model/document.h"
#include "core/model/graph_view.h"
#include "core/profile/paired_times.h"
#include "core/profile/profile_job.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/library.h"
#include "core/run/compare.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "test_support.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/passes/common_subexpression_elimination.h>

#include <QtCore/QJsonArray>
#include <QtCore/QSet>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace graft::core;

namespace {

std::unique_ptr<model::Document> open(const QString& model) {
  auto r = model.startsWith(QLatin1String("sample:")) ? io::loadSample(model.mid(7))
                                                       : io::loadFile(graft::test::testdata(model));
  if (!r.ok()) qFatal("%s: %s", qPrintable(model), qPrintable(r.error.message()));
  return std::move(r.document);
}

model::InputSet inputsOf(const model::Document& doc, const QString& model) {
  QStringList specs;
  if (model.endsWith(QLatin1String(".pt")) && !model.contains(QLatin1Char('/'))) {
    QStringList dims;
    for (const auto& d : graft::test::reference(model.chopped(3)).value(QLatin1String("input_shape")).toArray())
      dims << QString::number(d.toInt());
    specs << dims.join(QLatin1Char('x'));
  }
  auto r = specs.isEmpty() ? io::defaultInputs(doc, 0) : io::inputsFor(doc, specs, 0);
  if (!r.inputs) qFatal("%s: %s", qPrintable(model), qPrintable(r.error));
  return *r.inputs;
}

run::CompareResult comparePerNode(model::RevisionPtr a, model::RevisionPtr b, const model::InputSet& inputs,
                                  run::CompareOptions options = {}) {
  options.perNode = true;
  return run::compareRevisions(std::move(a), std::move(b), inputs, options);
}

// Every compared row counted elements, and nothing was left unpaired.
void checkClean(const run::CompareResult& r, const QString& what) {
  QVERIFY2(r.ok, qPrintable(what + QStringLiteral(": ") + r.error));
  QVERIFY2(r.nodes, qPrintable(what));
  QVERIFY2(r.verdict() == run::CompareResult::Verdict::Equal,
           qPrintable(what + QStringLiteral(": ") +
                      (r.nodes->firstBeyond ? r.nodes->firstBeyond->opB + QStringLiteral(" at ") + r.nodes->firstBeyond->modulePath +
                                                  QStringLiteral(" max abs ") + QString::number(r.nodes->firstBeyond->diff.maxAbs)
                                            : QStringLiteral("outputs differ"))));
  QVERIFY2(r.nodes->unmatchedA.empty() && r.nodes->unmatchedB.empty(), qPrintable(what));
  QVERIFY2(r.nodes->nodes.size() > 0, qPrintable(what));
  for (const auto& n : r.nodes->nodes)
    QVERIFY2(n.diff.numel > 0, qPrintable(what + QStringLiteral(": row without elements at ") + n.opB));
  for (const auto& g : r.nodes->changes)
    QVERIFY2(g.unpairedExits == 0, qPrintable(what + QStringLiteral(": unpaired outputs in ") + g.label()));
}

const QStringList kRules{QStringLiteral("fold-conv-bn"), QStringLiteral("remove-dropout"),
                         QStringLiteral("fuse-linear-relu"), QStringLiteral("linear-to-matmul-add")};

// Applies each rule that matches as its own revision; returns the total matches.
int applyRules(edit::Session& session, QStringList* applied = nullptr) {
  const auto library = rewrite::RuleLibrary::load();
  int total = 0;
  for (const QString& id : kRules) {
    const rewrite::Rule* rule = library.find(id);
    if (!rule) qFatal("no rule %s", qPrintable(id));
    if (rewrite::previewMatches(*session.document().current(), *rule).matches == 0) continue;
    const auto r = session.applyRewrite({rewrite::Step::ofRule(*rule)});
    if (!r.ok()) qFatal("%s: %s", qPrintable(id), qPrintable(r.error));
    for (const auto& report : r.reports) total += report.matches;
    if (applied) *applied << id;
  }
  return total;
}

QSet<QString> modulePaths(const model::Revision& revision) {
  QSet<QString> out;
  for (const auto& g : model::GraphView::build(revision).groups)
    if (!g.path.isEmpty()) out.insert(g.path);
  return out;
}

}  // namespace

class TestProvenance : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void rewritesCompareClean_data() {
    QTest::addColumn<QString>("model");
    for (const char* m : {"sample:cnn", "sample:mlp", "sample:transformer", "resnet18.pt", "mobilenet_v2.pt",
                          "pt2/resnet18.pt2", "pt2/mobilenet_v3_small.pt2", "pt2/resnet18_decomposed.pt2"})
      QTest::newRow(m) << QString::fromLatin1(m);
  }

  // After every built-in rule that matches, each revision compares clean against the original
  // node by node, in one session, and again across the saved file and the original file.
  void rewritesCompareClean() {
    QFETCH(QString, model);
    auto doc = open(model);
    const auto inputs = inputsOf(*doc, model);
    edit::Session session(*doc);
    QStringList applied;
    const int matches = applyRules(session, &applied);
    QVERIFY2(matches > 0, qPrintable(model + QStringLiteral(": no rule matched")));
    for (int i = 1; i < doc->count(); ++i)
      checkClean(comparePerNode(doc->original(), doc->revision(i), inputs),
                 QStringLiteral("%1 revision %2 (%3)").arg(model).arg(i).arg(doc->revision(i)->name()));
    // A relu → gelu change on top is named exactly where it is.
    const auto shown = model::GraphView::build(*doc->current());
    model::NodeId relu = model::kNoNode;
    for (const auto& n : shown.nodes)
      if (n.kind == QLatin1String("aten::relu") || n.kind == QLatin1String("aten::relu_")) { relu = n.id; break; }
    if (relu != model::kNoNode) {
      const auto mutated = session.apply(edit::ReplaceOp{relu, QStringLiteral("aten::gelu")});
      QVERIFY2(mutated.ok(), qPrintable(mutated.error));
      const auto r = comparePerNode(doc->original(), doc->current(), inputs);
      QVERIFY(r.ok && r.nodes && r.nodes->firstBeyond);
      QCOMPARE(r.nodes->firstBeyond->opB, QStringLiteral("aten::gelu"));
      QVERIFY(doc->current()->nodeOf(r.nodes->firstBeyond->nodeB));
      doc->undo();
    }

    // Saved and opened again: it still pairs with the original file through its saved provenance.
    if (model.startsWith(QLatin1String("sample:"))) return;
    QTemporaryDir dir;
    const QString suffix = model.endsWith(QLatin1String(".pt2")) ? QStringLiteral(".pt2") : QStringLiteral(".pt");
    const QString saved = dir.filePath(QStringLiteral("rewritten") + suffix);
    const auto written = io::saveAs(*doc, doc->current(), saved);
    QVERIFY2(written.ok, qPrintable(written.error));
    auto reloaded = io::loadFile(saved);
    QVERIFY2(reloaded.ok(), qPrintable(reloaded.error.message()));
    auto original = open(model);
    QVERIFY2(reloaded.document->savedRecord(), "the saved file carries no provenance record that fits it");
    run::CompareOptions options;
    QVERIFY(run::pairDocuments(*original, *original->current(), *reloaded.document, *reloaded.document->current(), options));
    checkClean(comparePerNode(original->current(), reloaded.document->current(), inputs, options),
               model + QStringLiteral(" against its saved rewrite"));

    // The saved file keeps the module hierarchy (less modules the rules emptied) and the op
    // histogram of the revision it was saved from.
    const auto savedView = model::GraphView::build(*reloaded.document->current());
    QCOMPARE(savedView.opHistogram(), model::GraphView::build(*doc->current()).opHistogram());
    const QSet<QString> before = modulePaths(*doc->original());
    const QSet<QString> kept = modulePaths(*doc->current());
    const QSet<QString> after = modulePaths(*reloaded.document->current());
    QVERIFY2(!after.isEmpty(), "the saved file has no module groups");
    QCOMPARE(after, kept);
    QVERIFY(kept.size() >= before.size() / 2);
  }

  // One answer to "what did this change do", whichever view asks: compare's change groups hold
  // exactly the nodes diff lists as removed, changed or added (and, beside them, only the kept
  // node a removed one was merged or folded into), every group holds one of those, and a pass
  // that removes nothing shows no group and diffs equal. libtorch's own CSE merges constants of
  // equal numbers (zero biases, a fresh batch norm's ones and zeros, two equal index buffers):
  // an op reading the merged copy computes what it did, so it is no change, and the ops merged
  // with their twins are removed, merged into them.
  void compareGroupsAgreeWithDiff() {
    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("cnn.py"));
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("import sys, torch\n"
            "class Block(torch.nn.Module):\n"
            "    def __init__(self, cin, c):\n"
            "        super().__init__()\n"
            "        self.conv = torch.nn.Conv2d(cin, c, 3, padding=1)\n"
            "        torch.nn.init.zeros_(self.conv.bias)\n"
            "        self.bn = torch.nn.BatchNorm2d(c)\n"
            "        self.drop = torch.nn.Dropout(0.1)\n"
            "    def forward(self, x):\n"
            "        return self.drop(torch.relu(self.bn(self.conv(x))))\n"
            "class Net(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.a, self.b, self.c = Block(3, 8), Block(8, 8), Block(8, 8)\n"
            "        self.register_buffer('ia', torch.arange(7, -1, -1))\n"
            "        self.register_buffer('ib', torch.arange(7, -1, -1))\n"
            "    def forward(self, x):\n"
            "        y = self.c(self.b(self.a(x)))\n"
            "        return y[:, self.ia.view(-1)] + y[:, self.ib.view(-1)]\n"
            "torch.manual_seed(0)\n"
            "ep = torch.export.export(Net().eval(), (torch.randn(1, 3, 16, 16),))\n"
            "torch.export.save(ep, sys.argv[1])\n");
    f.close();
    const QString file = dir.filePath(QStringLiteral("cnn.pt2"));
    QProcess p;
    p.start(qEnvironmentVariable("GRAFT_PYTHON"), {script, file});
    QVERIFY(p.waitForFinished(300000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    auto loaded = io::loadFile(file);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message()));
    model::Document& doc = *loaded.document;
    const auto inputs = inputsOf(doc, QStringLiteral("cnn/cnn.pt2"));
    edit::Session session(doc);
    const auto library = rewrite::RuleLibrary::load();

    // Compares `rev` with the original both ways and checks they agree; returns diff's removed count.
    auto agree = [&](const model::RevisionPtr& rev, const QString& what) -> int {
      const auto diff = edit::diffGraphs(*doc.original(), *rev, edit::DiffMatching::ByProvenance);
      const auto r = comparePerNode(doc.original(), rev, inputs);
      if (!r.ok || !r.nodes) {
        QTest::qFail(qPrintable(what + QStringLiteral(": ") + r.error), __FILE__, __LINE__);
        return -1;
      }
      if (r.verdict() != run::CompareResult::Verdict::Equal)
        QTest::qFail(qPrintable(what + QStringLiteral(": not equal")), __FILE__, __LINE__);
      QSet<model::NodeId> listedA, listedB, groupA, groupB;
      for (const auto& d : diff.removed) listedA.insert(d.node);
      for (const auto& d : diff.added) listedB.insert(d.node);
      for (const auto& d : diff.changed) {
        listedA.insert(d.nodeA);
        listedB.insert(d.node);
      }
      for (const auto& g : r.nodes->changes) {
        bool listed = false;
        for (auto id : g.a) {
          listed = listed || listedA.contains(id);
          groupA.insert(id);
        }
        for (auto id : g.b) {
          listed = listed || listedB.contains(id);
          groupB.insert(id);
        }
        if (!listed) QTest::qFail(qPrintable(what + QStringLiteral(": a group diff does not list: ") + g.label()), __FILE__, __LINE__);
        // Beside what diff lists, a group holds only the kept nodes removed ones went into.
        for (auto id : g.b)
          if (!listedB.contains(id) && rev->lineage().originOf(id).from.size() < 2)
            QTest::qFail(qPrintable(what + QStringLiteral(": an unchanged node in ") + g.label()), __FILE__, __LINE__);
      }
      for (auto id : listedA)
        if (!groupA.contains(id)) QTest::qFail(qPrintable(what + QStringLiteral(": diff lists a node no group holds: ") + doc.original()->kindOf(id)), __FILE__, __LINE__);
      for (auto id : listedB)
        if (!groupB.contains(id)) QTest::qFail(qPrintable(what + QStringLiteral(": diff lists a node no group holds: ") + rev->kindOf(id)), __FILE__, __LINE__);
      int removedInGroups = 0;
      for (auto id : groupA) removedInGroups += rev->nodeOf(id) ? 0 : 1;
      if (removedInGroups != diff.removed.size())
        QTest::qFail(qPrintable(what + QStringLiteral(": groups hold %1 removed nodes, diff lists %2").arg(removedInGroups).arg(diff.removed.size())), __FILE__, __LINE__);
      if (diff.equal() != r.nodes->changes.empty())
        QTest::qFail(qPrintable(what + QStringLiteral(": diff says %1, compare has %2 change groups").arg(diff.summaryText()).arg(r.nodes->changes.size())), __FILE__, __LINE__);
      return int(diff.removed.size());
    };

    // Graft's cse keeps every parameter and buffer: nothing to merge here.
    const auto cse = session.applyRewrite({rewrite::Step::ofPass(QStringLiteral("cse"))});
    QVERIFY2(cse.ok(), qPrintable(cse.error));
    QCOMPARE(cse.reports.front().matches, 0);
    QVERIFY(doc.current()->change().empty());
    QCOMPARE(agree(doc.current(), QStringLiteral("cse")), 0);
    if (QTest::currentTestFailed()) return;

    // libtorch's CSE merges the zero biases, the batch norms' ones and zeros and the two index
    // buffers: the convs and norms are no change; the second view, index list and index go into
    // their twins.
    auto copy = doc.original()->cloneGraph();
    auto tensorConstants = [](const torch::jit::Graph& g) {
      int n = 0;
      for (const auto* node : g.nodes()) n += node->kind() == c10::prim::Constant && node->output()->type()->kind() == c10::TypeKind::TensorType;
      return n;
    };
    const int constantsBefore = tensorConstants(*copy.graph);
    torch::jit::EliminateCommonSubexpression(copy.graph);
    QVERIFY(tensorConstants(*copy.graph) < constantsBefore - 3);  // biases, norm weights, buffers merged
    const auto stock = model::Revision::derived(*doc.original(), copy.graph, copy.ids, QStringLiteral("libtorch cse"), doc.ids());
    for (const auto& [id, origin] : stock->change().changed)
      QVERIFY2(!origin.altered, qPrintable(stock->kindOf(id) + QStringLiteral(" altered by a merge of equal constants")));
    QCOMPARE(agree(stock, QStringLiteral("libtorch cse")), 2);  // aten::view and aten::index
    if (QTest::currentTestFailed()) return;

    // Passes that remove nodes: each folded batch norm, each eval-mode dropout.
    QCOMPARE(applyRules(session), 6);
    for (int i = 1; i < doc.count(); ++i) agree(doc.revision(i), doc.revision(i)->name());
    QCOMPARE(agree(doc.current(), QStringLiteral("fold-conv-bn and remove-dropout")), 6);
  }

  // A self-comparison compares every value, and a file against itself pairs by provenance.
  void selfCompareComparesEverything() {
    auto doc = open(QStringLiteral("resnet18.pt"));
    auto again = open(QStringLiteral("resnet18.pt"));
    const auto inputs = inputsOf(*doc, QStringLiteral("resnet18.pt"));
    run::CompareOptions options;
    QVERIFY(run::pairDocuments(*doc, *doc->current(), *again, *again->current(), options));
    const auto r = comparePerNode(doc->current(), again->current(), inputs, options);
    checkClean(r, QStringLiteral("resnet18 against itself"));
    QCOMPARE(int(r.nodes->nodes.size()), model::GraphView::build(*doc->current()).opCount());
  }

  // The change a rule records: the folded conv derives from conv and batch_norm; the fused
  // replacement from linear and relu; linear → t, matmul, add from the linear.
  void changeRecordsWhereNodesComeFrom() {
    auto doc = open(QStringLiteral("sample:cnn"));
    edit::Session session(*doc);
    const auto library = rewrite::RuleLibrary::load();
    const auto r = session.applyRewrite({rewrite::Step::ofRule(*library.find(QStringLiteral("fold-conv-bn")))});
    QVERIFY(r.ok());
    const auto& change = doc->current()->change();
    int folded = 0;
    for (const auto& [id, origin] : change.changed) {
      const QString kind = doc->current()->kindOf(id);
      if (!kind.contains(QLatin1String("conv"))) continue;
      QCOMPARE(int(origin.from.size()), 2);
      QVERIFY(origin.altered);
      QStringList kinds;
      for (auto f : origin.from) kinds << doc->original()->kindOf(f);
      kinds.sort();
      QCOMPARE(kinds.last(), QStringLiteral("aten::conv2d"));
      QVERIFY(kinds.first().contains(QLatin1String("batch_norm")));
      ++folded;
    }
    QCOMPARE(folded, r.reports.front().matches);
    QCOMPARE(int(change.removed.size()), r.reports.front().matches);

    auto mlp = open(QStringLiteral("sample:mlp"));
    edit::Session mlpSession(*mlp);
    QVERIFY(mlpSession.applyRewrite({rewrite::Step::ofRule(*library.find(QStringLiteral("linear-to-matmul-add")))}).ok());
    // Composes: after a second rule the first rule's nodes still trace back to the original linear.
    const auto& lineage = mlp->current()->lineage();
    int traced = 0;
    for (auto id : mlp->current()->opNodeIds()) {
      const QString kind = mlp->current()->kindOf(id);
      if (kind != QLatin1String("aten::matmul")) continue;
      const auto origin = lineage.originOf(id);
      QCOMPARE(int(origin.from.size()), 1);
      QCOMPARE(mlp->original()->kindOf(origin.from.front()), QStringLiteral("aten::linear"));
      // The new nodes stay in the linear's module.
      QCOMPARE(mlp->current()->modulePathOf(id), mlp->original()->modulePathOf(origin.from.front()));
      ++traced;
    }
    QVERIFY(traced > 0);
  }

  // A scripted forward with a default argument keeps it when saved: stock PyTorch runs the saved
  // file with the original's inputs.
  void savedForwardKeepsDefaults() {
    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("defaults.py"));
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("import sys, torch\n"
            "from typing import Optional\n"
            "class M(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.fc = torch.nn.Linear(4, 4)\n"
            "        self.drop = torch.nn.Dropout(0.1)\n"
            "    def forward(self, x, scale: Optional[torch.Tensor] = None):\n"
            "        y = self.drop(torch.relu(self.fc(x)))\n"
            "        if scale is not None:\n"
            "            y = y * scale\n"
            "        return y\n"
            "if sys.argv[1] == 'make':\n"
            "    torch.jit.script(M().eval()).save(sys.argv[2])\n"
            "else:\n"
            "    m = torch.jit.load(sys.argv[2])\n"
            "    print(m(torch.ones(2, 4)).shape[1])\n");
    f.close();
    const QString made = dir.filePath(QStringLiteral("m.pt"));
    auto python = [&](const QString& mode, const QString& file) {
      QProcess p;
      p.start(qEnvironmentVariable("GRAFT_PYTHON"), {script, mode, file});
      p.waitForFinished(300000);
      const QString out = QString::fromUtf8(p.readAllStandardOutput());
      return std::make_pair(p.exitCode(), p.exitCode() == 0 ? out : out + QString::fromUtf8(p.readAllStandardError()));
    };
    QCOMPARE(python(QStringLiteral("make"), made).first, 0);
    auto loaded = io::loadFile(made);
    QVERIFY(loaded.ok());
    edit::Session session(*loaded.document);
    const auto library = rewrite::RuleLibrary::load();
    QVERIFY(session.applyRewrite({rewrite::Step::ofRule(*library.find(QStringLiteral("remove-dropout")))}).ok());
    const QString saved = dir.filePath(QStringLiteral("saved.pt"));
    QVERIFY(io::saveAs(*loaded.document, loaded.document->current(), saved).ok);
    const auto ran = python(QStringLiteral("run"), saved);
    QVERIFY2(ran.first == 0, qPrintable(ran.second));
    QCOMPARE(ran.second.trimmed(), QStringLiteral("4"));
  }

  // A rule applied inside a torch.cond branch leaves its result in that branch, in the revision
  // and in the file saved from it: it is computed only when the branch runs.
  void ruleStaysInsideItsBranch() {
    auto doc = open(QStringLiteral("pt2/cond.pt2"));
    edit::Session session(*doc);
    const auto library = rewrite::RuleLibrary::load();
    const auto r = session.applyRewrite({rewrite::Step::ofRule(*library.find(QStringLiteral("fuse-linear-relu")))});
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.reports.front().matches, 1);
    auto depthOf = [](const model::Revision& rev, const QString& kind) {
      int depth = -1;
      for (const auto& n : model::GraphView::build(rev).nodes)
        if (n.kind == kind) depth = n.blockDepth;
      return depth;
    };
    QCOMPARE(depthOf(*doc->current(), QStringLiteral("aten::_addmm_activation")), 1);
    // Both branches compare clean: one input whose sum is positive, one negative.
    for (double sign : {1.0, -1.0}) {
      model::InputSet in;
      in.values.push_back(at::ones({2, 8}) * sign);
      checkClean(comparePerNode(doc->original(), doc->current(), in), QStringLiteral("cond, sign %1").arg(sign));
    }
    QTemporaryDir dir;
    const QString saved = dir.filePath(QStringLiteral("cond.pt"));
    const auto written = io::saveAs(*doc, doc->current(), saved);
    QVERIFY2(written.ok, qPrintable(written.error));
    auto reloaded = io::loadFile(saved);
    QVERIFY(reloaded.ok());
    QCOMPARE(depthOf(*reloaded.document->current(), QStringLiteral("aten::_addmm_activation")), 1);
  }

  // Node times pair through provenance: every node's time is counted once on each side, and each
  // folded conv is timed against the conv and batch_norm it replaced.
  void profileTimesPairThroughProvenance() {
    auto doc = open(QStringLiteral("sample:cnn"));
    edit::Session session(*doc);
    QVERIFY(session.applyRewrite({rewrite::Step::ofRule(*rewrite::RuleLibrary::load().find(QStringLiteral("fold-conv-bn")))}).ok());
    const auto inputs = inputsOf(*doc, QStringLiteral("sample:cnn"));
    profile::ProfileOptions options;
    options.runs = 3;
    options.warmup = 1;
    const auto before = profile::runProfile(doc->original(), inputs, options);
    const auto after = profile::runProfile(doc->current(), inputs, options);
    for (const auto* r : {&before, &after})
      QVERIFY2(r->ok(), r->diagnostics.empty() ? "" : qPrintable(r->diagnostics.front().message));
    const auto rows = profile::pairNodeTimes(*before.profile, *doc->original(), *after.profile, *doc->current());
    double rowsBefore = 0, rowsAfter = 0, nodesBefore = 0, nodesAfter = 0;
    int folds = 0;
    QSet<model::NodeId> covered;
    for (const auto& r : rows) {
      rowsBefore += r.beforeMs;
      rowsAfter += r.afterMs;
      for (auto id : r.afterNodes) QVERIFY2(!covered.contains(id), "a node is counted twice");
      for (auto id : r.afterNodes) covered.insert(id);
      if (r.change && r.label.contains(QLatin1String("batch_norm"))) {
        ++folds;
        QVERIFY(r.beforeMs > 0 && r.afterMs > 0);
      }
    }
    for (const auto& n : before.profile->nodes) nodesBefore += n.selfMs.median;
    for (const auto& n : after.profile->nodes) nodesAfter += n.selfMs.median;
    QCOMPARE(folds, 6);
    QVERIFY(qAbs(rowsBefore - nodesBefore) < 1e-9 * std::max(1.0, nodesBefore));
    QVERIFY(qAbs(rowsAfter - nodesAfter) < 1e-9 * std::max(1.0, nodesAfter));
    QCOMPARE(int(covered.size()), int(doc->current()->opNodeIds().size()));
  }

  // diff between revisions counts what the rule did: one removed (folded) batch_norm and one
  // changed conv per match.
  void diffCountsMatchTheRule() {
    auto doc = open(QStringLiteral("resnet18.pt"));
    edit::Session session(*doc);
    const auto library = rewrite::RuleLibrary::load();
    const auto r = session.applyRewrite({rewrite::Step::ofRule(*library.find(QStringLiteral("fold-conv-bn")))});
    QVERIFY(r.ok());
    const int matches = r.reports.front().matches;
    QCOMPARE(matches, 20);
    const auto diff = edit::diffGraphs(*doc->original(), *doc->current(), edit::DiffMatching::ByProvenance);
    QCOMPARE(int(diff.removed.size()), matches);
    QCOMPARE(int(diff.added.size()), 0);
    QCOMPARE(int(diff.changed.size()), matches);
  }
};

QTEST_GUILESS_MAIN(TestProvenance)
#include "tst_provenance.moc"
