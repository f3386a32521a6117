// Python rule latency: the first rule compiled in a process (the worker starts, imports torch and
// warms up torch.export) and the rules after it (a fork of the warm worker: the rule editor's live
// preview), against a bare `python -c "import torch"` measured in the same run, as ratios. Each
// compile is what the editor's preview does: the rule file compiled for the model's format, then
// its matches counted on the model. Target: a warm preview at most 2 s.
// Usage: bench_python_rules [RULE.py ...] [--model SAMPLE]   (default: the shipped fuse_linear_relu.py,
// silu_decompose.py and fold_linear_bn.py on the mlp sample; the Python is Graft's default, or
// $GRAFT_PYTHON)
#include "core/io/load.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/python_rules.h"
#include "core/rewrite/python_worker.h"

#include "median_timing.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QProcess>
#include <QtCore/QStringList>

#include <cstdio>

using namespace graft::core;
using graft::bench::Clock;
using graft::bench::msSince;

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  QStringList rules;
  QString sample = QStringLiteral("mlp");
  const QStringList args = app.arguments().mid(1);
  for (int i = 0; i < args.size(); ++i) {
    if (args[i] == QLatin1String("--model") && i + 1 < args.size()) sample = args[++i];
    else rules << args[i];
  }
  if (rules.isEmpty())
    for (const char* name : {"fuse_linear_relu.py", "silu_decompose.py", "fold_linear_bn.py"})
      rules << QStringLiteral(GRAFT_SOURCE_DIR "/resources/rules/python/") + QLatin1String(name);
  auto loaded = io::loadSample(sample);
  if (!loaded.ok()) {
    std::printf("bench_python_rules: %s\n", qPrintable(loaded.error.message()));
    return 1;
  }
  const auto& doc = *loaded.document;
  const QJsonObject ranks = rewrite::siteRanks(doc);
  const QString python = rewrite::pythonInterpreter();

  // A preview: compile for the model's format, count the matches.
  QString failed;
  const auto preview = [&](const QString& rule) {
    const auto set = rewrite::compilePythonRules(rule, ranks);
    if (!set.ok()) {
      failed = set.error.toString();
      return 0;
    }
    int matches = 0;
    for (const auto& r : set.forFormat(doc.format())) matches += rewrite::previewMatches(*doc.current(), r).matches;
    return matches;
  };

  const auto importTorch = [&] {
    QProcess p;
    p.start(python, {QStringLiteral("-c"), QStringLiteral("import torch")});
    p.waitForFinished(600000);
  };
  importTorch();  // the page cache warm, as for the worker's start below
  const double bare = graft::bench::medianMs(3, importTorch);
  std::printf("python: %s\nbare `python -c \"import torch\"`: %.0f ms (median of 3)\n\n", qPrintable(python), bare);
  std::printf("%-24s %8s %10s %10s %10s %10s\n", "rule", "matches", "first_ms", "first/bare", "warm_ms", "warm/bare");
  for (const QString& rule : rules) {
    rewrite::stopPythonWorker();  // each rule's first figure includes the worker's start
    const auto t0 = Clock::now();
    const int matches = preview(rule);
    const double first = msSince(t0);
    const double warm = graft::bench::medianMs(5, [&] { preview(rule); });
    if (!failed.isEmpty()) {
      std::printf("%s\n", qPrintable(failed));
      return 1;
    }
    std::printf("%-24s %8d %10.0f %10.2f %10.0f %10.2f\n", qPrintable(rule.section(QLatin1Char('/'), -1)), matches, first,
                first / bare, warm, warm / bare);
  }
  std::printf("\nworker starts: %d (one per rule above: its first figure)\n", rewrite::pythonWorkerStarts());
  return 0;
}
