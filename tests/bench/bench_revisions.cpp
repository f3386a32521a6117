// Memory of many revisions: 50 edits of vit_b_16 must share the weights, so the process grows by
// at most 1.2x the model's weight bytes plus a fixed overhead. Prints RSS (VmRSS) before load,
// after load and after the edits, as ratios against the weight bytes measured in the same run.
//   bench_revisions [MODEL.pt]   (default: $GRAFT_TESTDATA or build/release/testdata, vit_b_16.pt;
//   make it with tests/python/make_models.py build/release/testdata vit_b_16)
#include "core/edit/edit.h"
#include "core/edit/session.h"
#include "core/io/load.h"
#include "tests/bench/resident_memory.h"
#include "core/model/graph_walk.h"

#include <torch/script.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <cstdio>
#include <unordered_set>

using namespace graft::core;
using graft::bench::rssMiB;

namespace {

// Bytes of the distinct tensor storages the graph's constants and the module's attributes hold.
double weightMiB(const model::Revision& rev) {
  std::unordered_set<const void*> seen;
  double bytes = 0;
  auto add = [&](const at::Tensor& t) {
    if (t.defined() && seen.insert(t.storage().data()).second) bytes += static_cast<double>(t.storage().nbytes());
  };
  model::forEachNode(*rev.graph(), [&](torch::jit::Node* n) {
    if (n->kind() == c10::prim::Constant && n->output()->type()->kind() == c10::TypeKind::TensorType) add(n->t(c10::attr::value));
  });
  for (const auto& p : rev.module().named_attributes(true))
    if (p.value.isTensor()) add(p.value.toTensor());
  return bytes / (1024.0 * 1024.0);
}

model::NodeId nth(const model::Revision& rev, const char* kind, int n) {
  std::vector<model::NodeId> ids;
  for (auto id : rev.nodeIds())
    if (rev.nodeOf(id)->kind().toQualString() == std::string(kind)) ids.push_back(id);
  return ids.empty() ? model::kNoNode : ids[n % ids.size()];
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  const QString root = qEnvironmentVariable("GRAFT_TESTDATA", QStringLiteral("build/release/testdata"));
  const QString path = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QDir(root).filePath(QStringLiteral("vit_b_16.pt"));
  const int edits = 50;
  const double fixedOverheadMiB = 64;

  const double before = rssMiB();
  auto loaded = io::loadFile(path);
  if (!loaded.ok()) {
    std::fprintf(stderr, "bench_revisions: %s: %s\n", qPrintable(path), qPrintable(loaded.error.headline));
    return 2;
  }
  auto& doc = *loaded.document;
  const double afterLoad = rssMiB();
  const double weights = weightMiB(*doc.current());

  edit::Session session(doc);
  int refused = 0;
  for (int i = 0; i < edits; ++i) {
    const auto& rev = *doc.current();
    edit::Edit e = i % 2 == 0 ? edit::Edit(edit::InsertOp{nth(rev, "aten::linear", i / 2), 0, QStringLiteral("aten::relu"), {}})
                              : edit::Edit(edit::EditConstant{nth(rev, "aten::layer_norm", i / 2), QStringLiteral("eps"),
                                                              QString::number(1e-6 * (i + 1))});
    const auto r = session.apply(e);
    if (!r.ok()) {
      ++refused;
      std::fprintf(stderr, "edit %d refused: %s\n", i + 1, qPrintable(r.error));
    }
  }
  const double afterEdits = rssMiB();
  const double growth = afterEdits - before;
  const double limit = 1.2 * weights + fixedOverheadMiB;

  std::printf("model                 %s\n", qPrintable(QFileInfo(path).fileName()));
  std::printf("weight bytes          %.1f MiB\n", weights);
  std::printf("rss before load       %.1f MiB\n", before);
  std::printf("rss after load        %.1f MiB  (+%.1f MiB, %.2fx weights)\n", afterLoad, afterLoad - before, (afterLoad - before) / weights);
  std::printf("rss after %d edits    %.1f MiB  (+%.1f MiB for %d revisions, %.3fx weights)\n", edits, afterEdits,
              afterEdits - afterLoad, doc.count() - 1, (afterEdits - afterLoad) / weights);
  std::printf("total growth          %.1f MiB = %.2fx weights; limit 1.2x + %.0f MiB = %.1f MiB: %s\n", growth,
              growth / weights, fixedOverheadMiB, limit, growth <= limit ? "within" : "EXCEEDED");
  // Running or saving builds the current revision's module once; it shares the weights too.
  doc.current()->runnable();
  const double afterRunnable = rssMiB();
  std::printf("rss after runnable()  %.1f MiB  (+%.1f MiB, %.3fx weights)\n", afterRunnable, afterRunnable - afterEdits,
              (afterRunnable - afterEdits) / weights);
  if (refused) std::printf("refused edits         %d\n", refused);
  return growth <= limit && refused == 0 ? 0 : 1;
}
