// The model core: samples, revisions with stable NodeIds, GraphView folding and the module tree,
// and the document's history.
#include "core/edit/session.h"
#include "core/io/load.h"
#include "core/model/graph_view.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/rule_parser.h"
#include "core/samples/samples.h"
#include "test_support.h"

#include <torch/script.h>

#include <QtCore/QJsonDocument>
#include <QtTest/QtTest>

using namespace graft::core;

namespace {

std::unique_ptr<model::Document> sample(const char* name) {
  auto r = io::loadSample(QString::fromLatin1(name));
  if (!r.ok()) qFatal("%s", qPrintable(r.error.message()));
  return std::move(r.document);
}

}  // namespace

class TstModel : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void samplesBuildAndRun_data() {
    QTest::addColumn<QString>("name");
    for (const auto& s : samples::all()) QTest::newRow(qPrintable(s.name)) << s.name;
  }
  void samplesBuildAndRun() {
    QFETCH(QString, name);
    auto doc = io::loadSample(name).document;
    QVERIFY(doc);
    const auto* info = samples::find(name);
    auto out = doc->current()->runnable().forward({torch::randn(info->inputShape)}).toTensor();
    // The runnable module of revision 0 computes what the unfrozen sample computes.
    at::manual_seed(1);
    auto x = torch::randn(info->inputShape);
    auto expected = samples::build(name)->forward({x}).toTensor();
    auto got = doc->current()->runnable().forward({x}).toTensor();
    QVERIFY(torch::allclose(expected, got, 1e-5, 1e-6));
    QVERIFY(out.dim() >= 2);
  }
  void cnnFoldsConstantsAndKeepsModules() {
    auto doc = sample("cnn");
    const auto view = model::GraphView::build(*doc->current());
    QCOMPARE(view.opHistogram().value(QStringLiteral("aten::conv2d")), 6);
    QCOMPARE(view.opHistogram().value(QStringLiteral("aten::batch_norm")), 6);
    QCOMPARE(view.opHistogram().value(QStringLiteral("aten::add")), 2);
    QCOMPARE(view.groups[0].totalOps, view.opCount());
    QCOMPARE(view.groups[0].totalNodes, view.nodes.size());
    for (const auto& n : view.nodes) QVERIFY2(n.kind != QLatin1String("prim::Constant"), "constants are folded");
    const model::ViewNode* conv = nullptr;
    for (const auto& n : view.nodes)
      if (n.kind == QLatin1String("aten::conv2d") && n.modulePath == QLatin1String("block1.conv1")) conv = &n;
    QVERIFY(conv);
    QCOMPARE(view.groups[conv->group].path, QStringLiteral("block1.conv1"));
    QCOMPARE(view.groups[conv->group].typeName, QStringLiteral("Conv2d"));
    QStringList attrNames;
    for (const auto& a : conv->attributes) attrNames << a.name;
    QVERIFY(attrNames.contains(QStringLiteral("weight")));
    QVERIFY(attrNames.contains(QStringLiteral("stride")));
    for (const auto& a : conv->attributes)
      if (a.name == QLatin1String("weight")) QCOMPARE(a.value, QStringLiteral("Tensor float32 [16, 16, 3, 3]"));
      else if (a.name == QLatin1String("stride")) QCOMPARE(a.value, QStringLiteral("[1, 1]"));
    QCOMPARE(conv->inputs.size(), 1);  // only the feature map is an edge
    QVERIFY(conv->irLine >= 0);
    QVERIFY(doc->current()->irText().split('\n')[conv->irLine].contains(QStringLiteral("aten::conv2d")));
  }
  void edgesConnectProducersToConsumers() {
    auto doc = sample("cnn");
    const auto view = model::GraphView::build(*doc->current());
    int fromInput = 0, toOutput = 0;
    for (const auto& e : view.edges) {
      if (e.from == model::kNoNode) ++fromInput;
      else QVERIFY(view.node(e.from));
      if (e.to == model::kNoNode) ++toOutput;
      else QVERIFY(view.node(e.to));
    }
    QCOMPARE(fromInput, 1);
    QCOMPARE(toOutput, 1);
    // The residual add has two incoming edges.
    for (const auto& n : view.nodes)
      if (n.kind == QLatin1String("aten::add")) QCOMPARE(n.inputs.size(), 2);
  }
  // A module called twice is two groups in call order: BasicBlock's `relu` after bn1, then after
  // the residual add, named as torch.export numbers the calls (relu, relu@1). Tables name the
  // call; rules and pairing by module still see one module.
  void moduleCalledTwiceIsTwoGroups_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("torchscript") << QStringLiteral("resnet18.pt");
    QTest::newRow("pt2") << QStringLiteral("pt2/resnet18.pt2");
  }
  void moduleCalledTwiceIsTwoGroups() {
    QFETCH(QString, file);
    auto loaded = io::loadFile(graft::test::testdata(file));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message()));
    const auto& rev = *loaded.document->current();
    const auto view = model::GraphView::build(rev);
    const auto groupAt = [&](const QString& path) {
      for (const auto& g : view.groups)
        if (g.path == path) return g.index;
      return -1;
    };
    const int block = groupAt(QStringLiteral("layer1.0"));
    QVERIFY(block > 0);
    QStringList children;
    for (int c : view.groups[block].children) children << view.groups[c].name;
    QCOMPARE(children, QStringList({"conv1", "bn1", "relu", "conv2", "bn2", "relu (2)"}));
    const int first = groupAt(QStringLiteral("layer1.0.relu")), second = groupAt(QStringLiteral("layer1.0.relu (2)"));
    QVERIFY(first > 0 && second > 0);
    for (int g : {first, second}) {
      QCOMPARE(view.groups[g].nodes.size(), 1);
      QCOMPARE(view.groups[g].instancePath, QStringLiteral("layer1.0.relu"));
      QCOMPARE(view.node(view.groups[g].nodes.front())->kind, QStringLiteral("aten::relu_"));
    }
    QCOMPARE(view.groups[first].call, 1);
    QCOMPARE(view.groups[second].call, 2);
    // Call order: the first relu reads bn1, the second the residual add (an op of the block itself).
    const model::NodeId reluA = view.groups[first].nodes.front(), reluB = view.groups[second].nodes.front();
    QVERIFY(view.indexOf.value(reluA) < view.indexOf.value(reluB));
    const auto producerGroup = [&](model::NodeId to) {
      for (const auto& e : view.edges)
        if (e.to == to && e.from != model::kNoNode) return view.groups[view.node(e.from)->group].path;
      return QString();
    };
    QCOMPARE(producerGroup(reluA), QStringLiteral("layer1.0.bn1"));
    QCOMPARE(producerGroup(reluB), QStringLiteral("layer1.0"));
    QCOMPARE(view.node(reluB)->modulePath, QStringLiteral("layer1.0.relu (2)"));
    QCOMPARE(view.node(reluB)->instancePath, QStringLiteral("layer1.0.relu"));
    QCOMPARE(rev.modulePathOf(reluB), QStringLiteral("layer1.0.relu (2)"));
    QCOMPARE(rev.placeOf(reluB).path(), QStringLiteral("layer1.0.relu"));
    QCOMPARE(rev.modulePathOf(reluA), QStringLiteral("layer1.0.relu"));
    // A rule's module glob names the module: both of its calls match.
    const auto rule = rewrite::parseRule(QStringLiteral("id: r\n[pattern]\ngraph(%x):\n  %r = aten::relu_(%x)\n  return (%r)\n"
                                                        "[replacement]\ngraph(%x):\n  return (%x)\n[condition] module ~ layer1.0.relu\n"),
                                         QStringLiteral("r.rule"));
    QVERIFY(rule.ok());
    QCOMPARE(rewrite::previewMatches(rev, rule.rule).matches, 2);

    // Every module has as many groups as stock PyTorch's torch.export counts calls of it.
    const auto py = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/module_calls.py"),
                                           {graft::test::testdata(QStringLiteral("pt2/resnet18.pt2"))});
    if (py.exitCode != 0) QSKIP(qPrintable(QStringLiteral("no torch for the reference: ") + QString::fromUtf8(py.err.right(300))));
    const QJsonObject calls = QJsonDocument::fromJson(py.out).object().value(QStringLiteral("calls")).toObject();
    QVERIFY(calls.value(QStringLiteral("layer1.0.relu")).toInt() == 2);
    QHash<QString, int> groups;
    for (const auto& g : view.groups)
      if (g.index > 0) ++groups[g.instancePath];
    QCOMPARE(groups.size(), calls.size());
    for (auto it = calls.begin(); it != calls.end(); ++it)
      QVERIFY2(groups.value(it.key()) == it.value().toInt(),
               qPrintable(QStringLiteral("%1: %2 groups, %3 calls").arg(it.key()).arg(groups.value(it.key())).arg(it.value().toInt())));
  }
  // A node an edit adds with only a call stack (copied from its neighbour) joins that neighbour's
  // call: a relu added after the block's second relu is drawn in `relu (2)`, not in the first.
  void newNodeJoinsTheCallOfItsStack() {
    auto loaded = io::loadFile(graft::test::testdata(QStringLiteral("resnet18.pt")));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message()));
    const auto base = loaded.document->current();
    model::NodeId second = model::kNoNode;
    for (model::NodeId id : base->opNodeIds())
      if (base->modulePathOf(id) == QLatin1String("layer1.0.relu (2)")) second = id;
    QVERIFY(second != model::kNoNode);
    auto copy = base->cloneGraph();
    torch::jit::Node* relu = nullptr;
    for (const auto& [node, id] : copy.ids)
      if (id == second) relu = const_cast<torch::jit::Node*>(node);
    QVERIFY(relu);
    auto* added = copy.graph->create(c10::Symbol::fromQualString("aten::relu"), {relu->output()});
    added->insertAfter(relu);
    added->setCallStack(*relu->callstack());
    relu->output()->replaceAllUsesAfterNodeWith(added, added->output());
    auto next = model::Revision::derived(*base, copy.graph, copy.ids, QStringLiteral("add relu"), loaded.document->ids());
    const model::NodeId id = next->idOf(added);
    QCOMPARE(next->placeOf(id).path(), QStringLiteral("layer1.0.relu"));
    QCOMPARE(next->modulePathOf(id), QStringLiteral("layer1.0.relu (2)"));
    const auto view = model::GraphView::build(*next);
    QCOMPARE(view.node(id)->group, view.node(second)->group);
  }
  void nodeIdsAreStableAcrossRevisions() {
    auto doc = sample("mlp");
    const auto base = doc->current();
    auto copy = base->cloneGraph();
    // Remove the first dropout by hand: its output is replaced by its input.
    torch::jit::Node* dropout = nullptr;
    for (auto* n : copy.graph->nodes())
      if (n->kind() == c10::aten::dropout) { dropout = n; break; }
    QVERIFY(dropout);
    const auto removedId = copy.ids.at(dropout);
    dropout->output()->replaceAllUsesWith(dropout->input(0));
    copy.ids.erase(dropout);
    dropout->destroy();
    auto next = model::Revision::derived(*base, copy.graph, copy.ids, QStringLiteral("remove dropout"), doc->ids());
    graft::core::edit::Session(*doc).commitBuilt(next);
    QCOMPARE(doc->count(), 2);
    auto before = base->nodeIds(), after = next->nodeIds();
    QCOMPARE(after.size() + 1, before.size());
    before.erase(std::find(before.begin(), before.end(), removedId));
    QCOMPARE(after, before);
    QVERIFY(base->irText().contains(QStringLiteral("aten::dropout")));  // the original is untouched
  }
  void historyKeepsEveryRevision() {
    auto doc = sample("mlp");
    auto rev = [&](const char* name) {
      auto c = doc->current()->cloneGraph();
      return model::Revision::derived(*doc->current(), c.graph, c.ids, QString::fromLatin1(name), doc->ids());
    };
    graft::core::edit::Session(*doc).commitBuilt(rev("a"));
    graft::core::edit::Session(*doc).commitBuilt(rev("b"));
    doc->undo();
    QCOMPARE(doc->current()->name(), QStringLiteral("a"));
    graft::core::edit::Session(*doc).commitBuilt(rev("c"));  // a branch: "b" stays in the history
    QCOMPARE(doc->count(), 4);
    QCOMPARE(doc->revision(2)->name(), QStringLiteral("b"));
    doc->undo();
    doc->redo();
    QCOMPARE(doc->current()->name(), QStringLiteral("c"));
    doc->undo();
    doc->undo();
    QVERIFY(!doc->canUndo());
    QCOMPARE(doc->currentIndex(), 0);
  }
};

QTEST_GUILESS_MAIN(TstModel)
#include "tst_model.moc"
