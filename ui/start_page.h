#pragma once
// What the centre shows while no model is open: the samples to open and the guided tours to
// start, so a newcomer has a first thing to click.
#include <QtWidgets/QWidget>

namespace graft::ui {

class StartPage : public QWidget {
  Q_OBJECT
 public:
  explicit StartPage(QWidget* parent = nullptr);

 Q_SIGNALS:
  void sampleRequested(const QString& name);
  void tourRequested(const QString& id);
  void openRequested();
};

}  // namespace graft::ui
