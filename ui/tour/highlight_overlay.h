#pragma once
// A coloured frame drawn over a widget a tour step talks about. It is a transparent sibling
// on top of the widget (clicks pass through) that follows its geometry.
#include <QtCore/QPointer>
#include <QtWidgets/QWidget>

namespace graft::ui {

class HighlightOverlay : public QWidget {
 public:
  explicit HighlightOverlay(QWidget* target);
  QWidget* target() const { return target_; }
  static QColor colour() { return QColor(0x00, 0x97, 0xa7); }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  void follow();
  QPointer<QWidget> target_;
};

}  // namespace graft::ui
