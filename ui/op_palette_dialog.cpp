#include "ui/op_palette_dialog.h"

#include "core/edit/op_palette.h"

#include <QtWidgets/QDialogButtonBox>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

struct OpPaletteDialog::Data {
  core::edit::OpPalette palette = core::edit::OpPalette::fromRegistry();
};

OpPaletteDialog::OpPaletteDialog(const QString& title, const QString& initialFilter, QWidget* parent)
    : QDialog(parent), data_(std::make_unique<Data>()) {
  setWindowTitle(title);
  setObjectName(QStringLiteral("opPaletteDialog"));
  resize(720, 520);
  auto* layout = new QVBoxLayout(this);
  filter_ = new QLineEdit(initialFilter, this);
  filter_->setObjectName(QStringLiteral("opFilter"));
  filter_->setPlaceholderText(tr("Search operators, e.g. gelu"));
  list_ = new QListWidget(this);
  list_->setObjectName(QStringLiteral("opList"));
  schema_ = new QLabel(this);
  schema_->setWordWrap(true);
  schema_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  layout->addWidget(filter_);
  layout->addWidget(list_, 1);
  layout->addWidget(schema_);
  layout->addWidget(buttons);
  connect(filter_, &QLineEdit::textChanged, this, &OpPaletteDialog::refilter);
  connect(list_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    schema_->setText(item ? item->toolTip() : QString());
  });
  connect(list_, &QListWidget::itemDoubleClicked, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  refilter();
}

OpPaletteDialog::~OpPaletteDialog() = default;

void OpPaletteDialog::refilter() {
  list_->clear();
  for (const auto& e : data_->palette.search(filter_->text(), 300)) {
    auto* item = new QListWidgetItem(e.overload.isEmpty() ? e.name : e.name + QLatin1Char('.') + e.overload, list_);
    item->setData(Qt::UserRole, e.name);
    item->setToolTip(e.schema);
  }
  if (list_->count() > 0) list_->setCurrentRow(0);
}

QString OpPaletteDialog::selectedOp() const {
  const auto* item = list_->currentItem();
  return item ? item->data(Qt::UserRole).toString() : QString();
}

}  // namespace graft::ui
