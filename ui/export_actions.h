#pragma once
// File > Export: what the canvas shows (SVG, PNG), the flat op graph (DOT) and one
// self-contained HTML report (core/report/html_report). Each goes through the output policy
// (core/io/file_policy.h) and writes atomically.
#include "core/model/diagnostic.h"
#include "ui/workbench.h"

#include <QtCore/QObject>

class QAction;

namespace graft::ui {

class DocumentController;

class ExportActions : public QObject {
  Q_OBJECT
 public:
  // `parts`: the window's (its controller, selection, shown view and status bar).
  ExportActions(const Workbench& parts, QObject* parent);

  QAction* svg = nullptr;
  QAction* png = nullptr;
  QAction* report = nullptr;
  QAction* dot = nullptr;

  // False with a message in the status bar (and the Issues dock) on failure.
  bool exportSvg(const QString& path);
  bool exportPng(const QString& path);
  bool exportDot(const QString& path);
  // The diagram as shown, with the original beside it when the current revision differs, facts,
  // history, the differences, the last compare and profile.
  bool exportReport(const QString& path);

 Q_SIGNALS:
  void diagnosticsReported(const core::model::Diagnostics& diagnostics);

 private:
  void exportDialog(const QString& filter, const QString& suffix, bool (ExportActions::*write)(const QString&));
  // The output policy's refusal, shown; true when `path` may be written.
  bool mayWrite(const QString& path);
  void failed(const QString& path, const QString& error);
  const Workbench& parts_;
  DocumentController* controller_;
};

}  // namespace graft::ui
