#pragma once
// Quantization error on the canvas: the open (quantized) revision against a float twin chosen by
// the user, module by module on a worker thread (core/run/numerics_job.h, runQuantError).
#include "core/jobs/numerics_job.h"
#include "ui/workbench.h"

#include <QtCore/QFutureWatcher>
#include <QtCore/QObject>

namespace graft::core::model { class Document; }

namespace graft::ui {

class CompareDock;

class QuantErrorOverlay : public QObject {
  Q_OBJECT
 public:
  explicit QuantErrorOverlay(QObject* parent = nullptr);
  ~QuantErrorOverlay() override;

  // Opens `floatPath` and compares, both on a worker thread; false with `error` set when a run is
  // already going or the path is no readable file. A file that does not load finishes with its
  // load error.
  bool start(core::model::RevisionPtr quantized, const QString& floatPath, core::model::InputsPtr inputs,
             QString* error);
  // The current revision of `document` against `floatPath`, with the Compare dock's inputs; a
  // model that records none asks for them in Compare's dialog first, then starts. False with
  // `error` set when it cannot start.
  bool startFor(const core::model::Document& document, CompareDock* compare, const QString& floatPath, QString* error);
  // Run > Quantization Error: the open document against `floatPath` (startFor), said in the
  // status bar; why it cannot start goes to the Issues dock. False when it cannot start.
  bool startForOpen(const Workbench& parts, const QString& floatPath);
  bool isRunning() const { return watcher_.isRunning(); }
  const core::jobs::QuantErrorSummary& result() const { return result_; }

  // The result as canvas heat: SQNR shown as dB below a ceiling (red: the lowest), with the
  // legend's title and end texts.
  QHash<core::model::NodeId, double> heat(QString* title, QString* low, QString* high) const;

 Q_SIGNALS:
  void finished();

 private:
  QFutureWatcher<core::jobs::QuantErrorSummary> watcher_;
  core::jobs::QuantErrorSummary result_;
};

}  // namespace graft::ui
