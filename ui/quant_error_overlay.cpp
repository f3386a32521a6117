#include "ui/quant_error_overlay.h"

#include "core/io/file_policy.h"
#include "core/io/load.h"
#include "core/model/document.h"
#include "core/io/input_specs.h"
#include "ui/compare_dock.h"
#include "ui/document/document_controller.h"
#include "ui/issues_dock.h"
#include "ui/main_docks.h"
#include "ui/document/off_thread.h"

#include <QtConcurrent/QtConcurrent>
#include <QtCore/QFileInfo>
#include <QtCore/QPointer>
#include <QtWidgets/QMainWindow>
#include <QtWidgets/QStatusBar>

#include <cmath>

namespace graft::ui {

namespace {
constexpr double kSqnrCeiling = 80;  // dB: above it, as good as exact (the Compare dock's SQNR scale)
}

QuantErrorOverlay::QuantErrorOverlay(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<core::jobs::QuantErrorSummary>::finished, this, [this] {
    result_ = watcher_.result();
    Q_EMIT finished();
  });
}

QuantErrorOverlay::~QuantErrorOverlay() { watcher_.waitForFinished(); }

bool QuantErrorOverlay::start(core::model::RevisionPtr quantized, const QString& floatPath,
                              core::model::InputsPtr inputs, QString* error) {
  if (isRunning()) {
    *error = tr("a quantization comparison is already running");
    return false;
  }
  // A path that is no model file at all is refused at once; what the file holds is read off the
  // GUI thread, and a load failure comes back as the result.
  if (const QString why = core::io::checkInputFile(floatPath, tr("float model")); !why.isEmpty()) {
    *error = why;
    return false;
  }
  watcher_.setFuture(QtConcurrent::run([quantized, floatPath, inputs] {
    auto loaded = core::io::loadFile(floatPath);
    if (!loaded.ok()) {
      core::jobs::QuantErrorSummary failed;
      failed.error = loaded.error.message();
      return failed;
    }
    // The revision keeps the float model alive; its document is not needed once loaded.
    return core::jobs::runQuantError(quantized, loaded.document->current(), inputs);
  }));
  return true;
}

bool QuantErrorOverlay::startForOpen(const Workbench& parts, const QString& floatPath) {
  const auto* doc = parts.controller->document();
  if (!doc) return false;
  QString error;
  if (startFor(*doc, parts.docks->compare, floatPath, &error)) {
    parts.window->statusBar()->showMessage(tr("Comparing each module with %1…").arg(QFileInfo(floatPath).fileName()));
    return true;
  }
  parts.docks->issues->add(
      {core::model::Diagnostic::error(QStringLiteral("compare"), error,
                                      tr("give the inputs in the Compare dock, or open the float model's own file"))});
  return false;
}

bool QuantErrorOverlay::startFor(const core::model::Document& document, CompareDock* compare, const QString& floatPath,
                                 QString* error) {
  // Input files (up to 4 GiB) are read off the GUI thread, as the docks read them.
  const auto inputs =
      runOffGuiThread([&document, spec = compare->inputSpec()] { return core::io::resolveInputs(document, spec, 0); });
  if (!inputs.inputs && inputs.missingShape >= 0) {
    // The model records no inputs: asked for as Compare asks, then started with the answer.
    compare->askForInputs([this, doc = QPointer<const core::model::Document>(&document), compare, floatPath] {
      QString later;
      if (!doc) return;  // closed while the dialog was open
      if (!startFor(*doc, compare, floatPath, &later)) {
        result_ = {};
        result_.error = later;
        Q_EMIT finished();
      }
    });
    return true;
  }
  if (!inputs.inputs) {
    *error = inputs.error;
    return false;
  }
  return start(document.current(), floatPath, inputs.snapshot(), error);
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
