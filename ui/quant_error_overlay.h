#pragma once
// Quantization error on the canvas: the open (quantized) revision against a float twin chosen by
// the user, module by module on a worker thread (core/run/numerics_job.h, runQuantError).
#include "core/run/numerics_job.h"

#include <QtCore/QFutureWatcher>
#include <QtCore/QObject>

namespace graft::ui {

class QuantErrorOverlay : public QObject {
  Q_OBJECT
 public:
  explicit QuantErrorOverlay(QObject* parent = nullptr);
  ~QuantErrorOverlay() override;

  // Opens `floatPath` and starts the comparison; false with `error` set when the file does not
  // open or a run is already going.
  bool start(core::model::RevisionPtr quantized, const QString& floatPath, core::run::InputsPtr inputs, QString* error);
  bool isRunning() const { return watcher_.isRunning(); }
  const core::run::QuantErrorSummary& result() const { return result_; }

  // The result as canvas heat: SQNR shown as dB below a ceiling (red: the lowest), with the
  // legend's title and end texts.
  QHash<core::model::NodeId, double> heat(QString* title, QString* low, QString* high) const;

 Q_SIGNALS:
  void finished();

 private:
  QFutureWatcher<core::run::QuantErrorSummary> watcher_;
  core::run::QuantErrorSummary result_;
};

}  // namespace graft::ui
