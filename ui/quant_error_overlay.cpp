#include "ui/quant_error_overlay.h"

#include "core/io/load.h"

#include <QtConcurrent/QtConcurrent>

#include <cmath>

namespace graft::ui {

namespace {
constexpr double kSqnrCeiling = 80;  // dB: above it, as good as exact (the Compare dock's SQNR scale)
}

QuantErrorOverlay::QuantErrorOverlay(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<core::run::QuantErrorSummary>::finished, this, [this] {
    result_ = watcher_.result();
    Q_EMIT finished();
  });
}

QuantErrorOverlay::~QuantErrorOverlay() { watcher_.waitForFinished(); }

bool QuantErrorOverlay::start(core::model::RevisionPtr quantized, const QString& floatPath, core::run::InputsPtr inputs,
                              QString* error) {
  if (isRunning()) {
    *error = tr("a quantization comparison is already running");
    return false;
  }
  auto loaded = core::io::loadFile(floatPath);
  if (!loaded.ok()) {
    *error = loaded.error.message();
    return false;
  }
  // The revision keeps the float model alive; its document is not needed once loaded.
  auto floatTwin = loaded.document->current();
  watcher_.setFuture(QtConcurrent::run([quantized, floatTwin, inputs] { return core::run::runQuantError(quantized, floatTwin, inputs); }));
  return true;
}

QHash<core::model::NodeId, double> QuantErrorOverlay::heat(QString* title, QString* low, QString* high) const {
  QHash<core::model::NodeId, double> out;
  double worst = 0;
  for (auto it = result_.sqnrByNode.begin(); it != result_.sqnrByNode.end(); ++it) {
    const double below = kSqnrCeiling - std::min(kSqnrCeiling, std::isnan(*it) ? -kSqnrCeiling : *it);
    out.insert(it.key(), below);
    worst = std::max(worst, below);
  }
  *title = tr("SQNR against the float model, per module (red: lowest)");
  *low = QStringLiteral("≥ %1 dB").arg(kSqnrCeiling);
  *high = QStringLiteral("%1 dB").arg(kSqnrCeiling - worst, 0, 'g', 3);
  return out;
}

}  // namespace graft::ui
