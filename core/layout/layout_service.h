#pragma once
// Runs a LayoutEngine on its own thread (an engine is used by one thread; Graphviz itself runs in
// the engine's worker processes) and hands finished diagrams back on the thread that owns the
// service. A new request cancels the one in flight.
#include "core/layout/diagram.h"
#include "core/layout/layout_engine.h"

#include <QtCore/QObject>
#include <QtCore/QThread>
#include <atomic>
#include <memory>

namespace graft::core::layout {

class LayoutService : public QObject {
  Q_OBJECT
 public:
  explicit LayoutService(QObject* parent = nullptr, LayoutOptions options = {});
  ~LayoutService() override;

  // Switches to `view` (dropping cached layouts); later requests lay it out.
  void setView(std::shared_ptr<const model::GraphView> view);
  // Queues a layout with `expanded` open; returns the request number `finished` will carry.
  int request(const Expansion& expanded, const Folds& folds = {});
  void cancel();
  bool busy() const { return pending_ > 0; }

 Q_SIGNALS:
  void progress(int request, int done, int total);
  void finished(int request, const graft::core::layout::Diagram& diagram);

 private:
  QThread thread_;
  QObject* worker_ = nullptr;   // lives on thread_, owns the engine
  LayoutEngine* engine_ = nullptr;
  std::shared_ptr<std::atomic<bool>> cancel_;
  int lastRequest_ = 0;
  int pending_ = 0;
};

}  // namespace graft::core::layout
