#include "ui/start_page.h"

#include "core/samples/samples.h"
#include "core/tour/tour_library.h"

#include <QtWidgets/QGridLayout>
#include <QtWidgets/QGroupBox>
#include <QtWidgets/QLabel>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

namespace {
// A button with a bold title and a grey line below it.
QPushButton* card(const QString& title, const QString& detail, QWidget* parent) {
  auto* b = new QPushButton(parent);
  b->setText(title);
  b->setToolTip(detail);
  b->setMinimumHeight(40);
  b->setStyleSheet(QStringLiteral("QPushButton { text-align: left; padding: 6px 12px; font-weight: bold; }"));
  return b;
}
}  // namespace

StartPage::StartPage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("startPage"));
  auto* outer = new QVBoxLayout(this);
  outer->addStretch(1);
  auto* column = new QVBoxLayout();
  auto* title = new QLabel(tr("<h1>Graft</h1><p>See, rewrite and verify PyTorch model graphs.</p>"), this);
  column->addWidget(title);

  auto* tours = new QGroupBox(tr("Learn by doing: guided tours"), this);
  auto* tourList = new QVBoxLayout(tours);
  for (const auto& t : core::tour::builtinTours()) {
    auto* b = card(t.title, t.description, tours);
    b->setObjectName(QStringLiteral("startTour-%1").arg(t.id));
    tourList->addWidget(b);
    auto* about = new QLabel(t.description, tours);
    about->setWordWrap(true);
    about->setStyleSheet(QStringLiteral("color: #555; margin-left: 12px; margin-bottom: 6px;"));
    tourList->addWidget(about);
    connect(b, &QPushButton::clicked, this, [this, id = t.id] { Q_EMIT tourRequested(id); });
  }
  column->addWidget(tours);

  auto* samples = new QGroupBox(tr("Open a sample model"), this);
  auto* sampleRow = new QHBoxLayout(samples);
  for (const auto& s : core::samples::all()) {
    auto* b = card(s.title, s.description, samples);
    b->setObjectName(QStringLiteral("startSample-%1").arg(s.name));
    sampleRow->addWidget(b);
    connect(b, &QPushButton::clicked, this, [this, name = s.name] { Q_EMIT sampleRequested(name); });
  }
  column->addWidget(samples);
  auto* open = new QPushButton(tr("Open a model file… (Ctrl+O)"), this);
  connect(open, &QPushButton::clicked, this, &StartPage::openRequested);
  column->addWidget(open);

  auto* centre = new QHBoxLayout();
  centre->addStretch(1);
  centre->addLayout(column, 3);
  centre->addStretch(1);
  outer->addLayout(centre);
  outer->addStretch(2);
}

}  // namespace graft::ui
