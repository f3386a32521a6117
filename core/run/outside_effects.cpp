#include "core/run/outside_effects.h"

#include "core/model/effect_ops.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/script.h>

#include <unordered_set>

namespace graft::core::run {

namespace {

class Walker {
 public:
  explicit Walker(const model::Revision& revision) : revision_(revision) {}

  void walk(const torch::jit::Block* block, const QString& within) {
    for (const torch::jit::Node* n : block->nodes()) {
      visit(n, within);
      for (const torch::jit::Block* sub : n->blocks()) walk(sub, within);
      if (n->hasAttribute(c10::attr::Subgraph) && n->kindOf(c10::attr::Subgraph) == torch::jit::AttributeKind::g)
        walkGraph(n->g(c10::attr::Subgraph).get(), within);
    }
  }

  std::vector<OutsideEffect> effects;

 private:
  void visit(const torch::jit::Node* n, const QString& within) {
    const QString op = QString::fromStdString(n->kind().toQualString());
    if (n->kind() == c10::prim::CallMethod) {
      callMethod(n, n->s(c10::attr::name));
      return;
    }
    // A `with` block calls its object's __enter__ and __exit__.
    if (n->kind() == c10::prim::Enter || n->kind() == c10::prim::Exit) {
      callMethod(n, n->kind() == c10::prim::Enter ? "__enter__" : "__exit__");
      return;
    }
    if (n->kind() == c10::prim::CallFunction) {
      if (auto fn = n->input(0)->type()->cast<c10::FunctionType>())
        if (auto* graphFn = torch::jit::tryToGraphFunction(*fn->function()))
          walkGraph(graphFn->graph().get(),
                    QStringLiteral("function %1").arg(QString::fromStdString(fn->function()->name())));
      return;
    }
    if (n->kind().is_prim() && !op.startsWith(QLatin1String("prim::rpc"))) return;
    const QString why = model::outsideEffectOf(op);
    if (why.isEmpty()) return;
    OutsideEffect e{op, why, model::kNoNode, within};
    if (within.isEmpty()) {
      e.node = revision_.idOf(n);
      const model::NodePlace& place = revision_.placeOf(e.node);
      e.where = QStringLiteral("node %1").arg(e.node);
      if (!place.modulePath.isEmpty()) e.where += QStringLiteral(", ") + place.callPath();
      if (place.sourceLine > 0) e.where += QStringLiteral(", %1:%2").arg(place.sourceFile).arg(place.sourceLine);
    }
    effects.push_back(std::move(e));
  }

  void callMethod(const torch::jit::Node* n, const std::string& name) {
    auto cls = n->input(0)->type()->cast<c10::ClassType>();
    if (!cls) return;
    const QString qualified = QString::fromStdString(cls->name() ? cls->name()->qualifiedName() : std::string());
    // Methods of libtorch's own C++ classes (torch.classes.*): a process group reaches other processes.
    if (qualified.startsWith(QLatin1String("__torch__.torch.classes."))) {
      if (qualified.contains(QLatin1String("c10d")) || qualified.contains(QLatin1String("dist")))
        effects.push_back({qualified + QStringLiteral(".") + QString::fromStdString(name),
                           QStringLiteral("talks to other processes (distributed communication)"), model::kNoNode,
                           QStringLiteral("method %1").arg(QString::fromStdString(name))});
      return;
    }
    if (auto* fn = cls->findMethod(name))
      if (auto* graphFn = torch::jit::tryToGraphFunction(*fn))
        walkGraph(graphFn->graph().get(), QStringLiteral("method %1.%2").arg(qualified, QString::fromStdString(name)));
  }

  void walkGraph(const torch::jit::Graph* graph, const QString& within) {
    if (!graph || !seen_.insert(graph).second) return;  // a method called twice is walked once
    walk(graph->block(), within);
  }

  const model::Revision& revision_;
  std::unordered_set<const torch::jit::Graph*> seen_;
};

}  // namespace

std::vector<OutsideEffect> outsideEffects(const model::Revision& revision) {
  Walker walker(revision);
  walker.walk(revision.graph()->block(), {});
  return std::move(walker.effects);
}

QString untrustedRunRefusal(const model::Revision& revision) {
  if (revision.sourceTrust()->trusted()) return {};
  const auto effects = outsideEffects(revision);
  if (effects.empty()) return {};
  const OutsideEffect& first = effects.front();
  QString text = QStringLiteral("not run: the model calls %1 (%2), which %3")
                     .arg(first.op, first.where, first.why);
  if (effects.size() > 1)
    text += QStringLiteral(", and %1 more such call%2").arg(effects.size() - 1).arg(effects.size() > 2 ? "s" : "");
  text += QStringLiteral(". A model file is data: Graft runs ops that reach outside the process only for a file you "
                         "trust (graft-cli --trust, or Run > Trust This Model in the window).");
  return text;
}

}  // namespace graft::core::run
