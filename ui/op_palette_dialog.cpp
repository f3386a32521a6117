#include "ui/op_palette_dialog.h"

#include "core/edit/op_palette.h"

#include <QtWidgets/QDialogButtonBox>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QListWidget>

#include <algorithm>
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

namespace {
// Ops people reach for first; distributed collectives only when asked for by name.
const QStringList kCommonOps{"relu",   "gelu",    "silu",    "sigmoid", "tanh",   "add",        "mul",
                             "sub",    "div",     "matmul",  "linear",  "conv2d", "softmax",    "layer_norm",
                             "dropout", "clamp",  "hardtanh", "abs",    "exp",    "batch_norm", "mean"};

bool distributed(const QString& name) {
  return name.contains(QLatin1String("c10d")) || name.contains(QLatin1String("_dtensor")) ||
         name.contains(QLatin1String("dist_"));
}

int rank(const QString& name) {
  const int common = int(kCommonOps.indexOf(name.section(QLatin1String("::"), -1)));
  if (common >= 0) return common;
  return name.startsWith(QLatin1String("aten::_")) ? 2000 : 1000;  // private aten ops after the public ones
}
}  // namespace

void OpPaletteDialog::refilter() {
  list_->clear();
  const QString text = filter_->text();
  auto found = data_->palette.search(text, 1 << 20);  // all of them, ranked below, then the first 300
  if (!text.contains(QLatin1String("c10d"), Qt::CaseInsensitive))
    found.erase(std::remove_if(found.begin(), found.end(), [](const auto& e) { return distributed(e.name); }),
                found.end());
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return rank(a.name) < rank(b.name); });
  if (found.size() > 300) found.resize(300);
  for (const auto& e : found) {
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
