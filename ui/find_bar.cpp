#include "ui/find_bar.h"

#include <QtCore/QRegularExpression>
#include <QtGui/QKeyEvent>
#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QToolButton>

namespace graft::ui {

FindBar::FindBar(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("findBar"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  edit_ = new QLineEdit(this);
  edit_->setObjectName(QStringLiteral("findEdit"));
  edit_->setPlaceholderText(tr("Find op, module path, value name or shape (1x16x64)"));
  edit_->setClearButtonEnabled(true);
  auto* prev = new QToolButton(this);
  prev->setText(tr("Previous"));
  auto* next = new QToolButton(this);
  next->setText(tr("Next"));
  auto* close = new QToolButton(this);
  close->setText(QStringLiteral("×"));
  count_ = new QLabel(this);
  layout->addWidget(new QLabel(tr("Find:"), this));
  layout->addWidget(edit_, 1);
  layout->addWidget(prev);
  layout->addWidget(next);
  layout->addWidget(count_);
  layout->addWidget(close);
  connect(edit_, &QLineEdit::returnPressed, this, &FindBar::next);
  connect(edit_, &QLineEdit::textEdited, this, [this](const QString& t) { search(t); });
  connect(prev, &QToolButton::clicked, this, &FindBar::previous);
  connect(next, &QToolButton::clicked, this, &FindBar::next);
  connect(close, &QToolButton::clicked, this, &QWidget::hide);
}

void FindBar::setView(const core::model::GraphView* view) {
  view_ = view;
  matches_.clear();
  current_ = -1;
  count_->clear();
}

int FindBar::search(const QString& text) {
  if (edit_->text() != text) edit_->setText(text);
  matches_.clear();
  current_ = -1;
  const QString t = text.trimmed();
  // A shape as the edges write it ("1×16×64", or "1x16x64" typed) finds the values of exactly
  // that shape; other text is looked for in the output's type too ("float16", "[1, 16").
  static const QRegularExpression dims(QStringLiteral("^\\d+(\\s*[x\\x{00D7},]\\s*\\d+)+$"));
  static const QRegularExpression separator(QStringLiteral("\\s*[x\\x{00D7},]\\s*"));
  const QString shape = dims.match(t).hasMatch()
                            ? QLatin1Char('[') + t.split(separator).join(QStringLiteral(", ")) + QLatin1Char(']')
                            : QString();
  if (view_ && !t.isEmpty()) {
    for (const auto& n : view_->nodes) {
      bool hit = n.op.contains(t, Qt::CaseInsensitive) || n.kind.contains(t, Qt::CaseInsensitive) ||
                 n.modulePath.contains(t, Qt::CaseInsensitive);
      for (const auto& o : n.outputs)
        hit = hit || o.name.contains(t, Qt::CaseInsensitive) ||
              (shape.isEmpty() ? o.type.contains(t, Qt::CaseInsensitive) : o.type.endsWith(QLatin1Char(' ') + shape));
      if (hit) matches_ << n.id;
    }
  }
  if (matches_.isEmpty()) count_->setText(t.isEmpty() ? QString() : tr("no match"));
  else step(1);
  return int(matches_.size());
}

void FindBar::next() { step(1); }
void FindBar::previous() { step(-1); }

void FindBar::step(int delta) {
  if (matches_.isEmpty()) return;
  const int n = int(matches_.size());
  current_ = current_ < 0 ? (delta > 0 ? 0 : n - 1) : ((current_ + delta) % n + n) % n;
  count_->setText(tr("%1 of %2").arg(current_ + 1).arg(n));
  Q_EMIT matchActivated(matches_[current_]);
}

void FindBar::activate() {
  show();
  edit_->setFocus();
  edit_->selectAll();
}

void FindBar::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape) return hide();
  if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && event->modifiers() & Qt::ShiftModifier)
    return previous();
  QWidget::keyPressEvent(event);
}

}  // namespace graft::ui
