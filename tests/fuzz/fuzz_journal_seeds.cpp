// Writes seed journals for fuzz_journal with the real Session code: edits of every kind, a rule
// rewrite, a libtorch pass and an undo-then-branch, on the built-in samples.
// Usage: fuzz_journal_seeds OUTDIR
#include "core/edit/session.h"
#include "core/io/load.h"
#include "core/rewrite/library.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QDir>

#include <cstdio>
#include <torch/csrc/jit/ir/ir.h>

using namespace graft::core;

namespace {

// The first node of `kind` in the current revision (kNoNode when there is none).
model::NodeId first(const model::Document& doc, const char* kind, int skip = 0) {
  const auto& rev = *doc.current();
  for (const model::NodeId id : rev.nodeIds())
    if (rev.nodeOf(id)->kind().toQualString() == std::string(kind) && skip-- == 0) return id;
  return model::kNoNode;
}

std::unique_ptr<model::Document> open(const QString& sample) {
  auto loaded = io::loadSample(sample);
  if (!loaded.ok()) std::fprintf(stderr, "cannot load %s\n", qPrintable(sample));
  return std::move(loaded.document);
}

void report(const char* what, const QString& error) {
  if (!error.isEmpty()) std::fprintf(stderr, "  %s refused: %s\n", what, qPrintable(error));
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_journal_seeds OUTDIR\n");
    return 2;
  }
  const QDir out(QString::fromLocal8Bit(argv[1]));
  QDir().mkpath(out.path());
  const auto library = rewrite::RuleLibrary::load();

  {  // mlp: replace, insert, edit a constant, undo and branch, close.
    auto doc = open(QStringLiteral("mlp"));
    edit::Session s(*doc);
    s.setJournalPath(out.filePath(QStringLiteral("mlp_edits.json")));
    report("replace", s.apply(edit::ReplaceOp{first(*doc, "aten::relu"), QStringLiteral("aten::gelu")}).error);
    report("insert", s.apply(edit::InsertOp{first(*doc, "aten::linear", 1), 0, QStringLiteral("aten::leaky_relu"),
                                            {{QStringLiteral("negative_slope"), QStringLiteral("0.2")}}}).error);
    report("constant", s.apply(edit::EditConstant{first(*doc, "aten::leaky_relu"), QStringLiteral("negative_slope"),
                                                  QStringLiteral("0.5")}).error);
    doc->setCurrent(1);
    report("delete", s.apply(edit::DeleteNode{first(*doc, "aten::dropout")}).error);
  }
  {  // cnn: bypass, rewire, a rule at one node, a rule everywhere, a pass.
    auto doc = open(QStringLiteral("cnn"));
    edit::Session s(*doc);
    s.setJournalPath(out.filePath(QStringLiteral("cnn_rewrites.json")));
    report("bypass", s.apply(edit::BypassNode{first(*doc, "aten::relu", 1), 0}).error);
    report("rewire", s.apply(edit::RewireInput{first(*doc, "aten::add"), 1, first(*doc, "aten::relu"), 0}).error);
    if (const auto* rule = library.find(QStringLiteral("fold-conv-bn")))
      report("fold-conv-bn", s.applyRewrite({rewrite::Step::ofRuleAt(*rule, first(*doc, "aten::batch_norm"))}).error);
    QVector<rewrite::Step> steps;
    if (const auto* rule = library.find(QStringLiteral("fuse-add-relu"))) steps << rewrite::Step::ofRule(*rule);
    steps << rewrite::Step::ofPass(QStringLiteral("dead-code-elimination"));
    report("rules and pass", s.applyRewrite(steps).error);
    s.close();
  }
  {  // transformer: a decomposition rule and a replaced op.
    auto doc = open(QStringLiteral("transformer"));
    edit::Session s(*doc);
    s.setJournalPath(out.filePath(QStringLiteral("transformer_gelu.json")));
    if (const auto* rule = library.find(QStringLiteral("gelu-decompose")))
      report("gelu-decompose", s.applyRewrite({rewrite::Step::ofRule(*rule)}).error);
    report("replace", s.apply(edit::ReplaceOp{first(*doc, "aten::softmax"), QStringLiteral("aten::log_softmax")}).error);
  }
  return 0;
}
