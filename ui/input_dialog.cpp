#include "ui/input_dialog.h"

#include "core/model/document.h"

#include <QtCore/QCryptographicHash>
#include <QtCore/QSettings>
#include <QtWidgets/QDialogButtonBox>
#include <QtWidgets/QGridLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

QString exampleSpec(const QString& type) {
  if (type == QLatin1String("int")) return QStringLiteral("3");
  if (type == QLatin1String("float")) return QStringLiteral("0.5");
  if (type == QLatin1String("bool")) return QStringLiteral("true");
  if (type.startsWith(QLatin1String("Optional"))) return QStringLiteral("none");
  if (type == QLatin1String("List[int]")) return QStringLiteral("[1,2]");
  if (type == QLatin1String("List[Tensor]")) return QStringLiteral("[3x224x224:float32]");
  return QStringLiteral("1x3x224x224:float32");
}

InputDialog::InputDialog(const QVector<core::io::ArgumentInfo>& arguments, const QStringList& previous, QWidget* parent)
    : QDialog(parent) {
  setObjectName(QStringLiteral("inputDialog"));
  setWindowTitle(tr("Model inputs"));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("This model does not record the inputs its forward takes. Give one per argument: "
                              "a shape with random values (1x3x224x224:float32), a tensor file (.pt, .npy), "
                              "a number (3, 0.5), true/false, none, or (…) tuples and […] lists."), this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  auto* grid = new QGridLayout();
  grid->addWidget(new QLabel(tr("<b>Argument</b>"), this), 0, 0);
  grid->addWidget(new QLabel(tr("<b>Type</b>"), this), 0, 1);
  grid->addWidget(new QLabel(tr("<b>Input</b>"), this), 0, 2);
  for (int i = 0; i < arguments.size(); ++i) {
    const auto& a = arguments[i];
    auto* field = new QLineEdit(this);
    field->setObjectName(QStringLiteral("inputSpec%1").arg(i));
    const QString example = a.defaultSpec.isEmpty() ? exampleSpec(a.type) : a.defaultSpec;
    field->setText(i < previous.size() ? previous[i] : example);
    field->setPlaceholderText(example);
    field->setToolTip(tr("e.g. %1").arg(example));
    grid->addWidget(new QLabel(a.name, this), i + 1, 0);
    grid->addWidget(new QLabel(a.type, this), i + 1, 1);
    grid->addWidget(field, i + 1, 2);
    fields_ << field;
    connect(field, &QLineEdit::textChanged, this, &InputDialog::validate);
  }
  grid->setColumnStretch(2, 1);
  layout->addLayout(grid);
  problem_ = new QLabel(this);
  problem_->setObjectName(QStringLiteral("inputProblem"));
  problem_->setWordWrap(true);
  problem_->setStyleSheet(QStringLiteral("color: #a00;"));
  layout->addWidget(problem_);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons_);
  validate();
}

void InputDialog::validate() {
  QString why;
  for (int i = 0; i < fields_.size() && why.isEmpty(); ++i) {
    const QString text = fields_[i]->text().trimmed();
    if (text.isEmpty()) why = tr("Argument %1 needs an input.").arg(i);
    else if (const QString e = core::io::checkInputSpec(text); !e.isEmpty()) why = e;
  }
  problem_->setText(why);
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}

QString InputDialog::specText() const {
  QStringList specs;
  for (auto* f : fields_) {
    const QString spec = f->text().trimmed();
    specs << (spec.contains(QLatin1Char(' ')) ? QLatin1Char('"') + spec + QLatin1Char('"') : spec);
  }
  return specs.join(QStringLiteral("; "));
}

namespace {
// Per file, under a key QSettings cannot misread (a path holds '/').
QString settingsKey(const QString& path) {
  return QString::fromLatin1(QCryptographicHash::hash(path.toUtf8(), QCryptographicHash::Sha1).toHex());
}
}  // namespace

QString InputDialog::remembered(const QString& path) {
  if (path.isEmpty()) return {};
  return QSettings().value(QStringLiteral("inputs/") + settingsKey(path), QString()).toString();
}

void InputDialog::remember(const QString& path, const QString& specText) {
  if (!path.isEmpty()) QSettings().setValue(QStringLiteral("inputs/") + settingsKey(path), specText);
}

void askInputs(const core::model::Document* document, QLineEdit* box, QWidget* parent, std::function<void()> then) {
  const QString path = document->sourcePath();
  QString previous = box->text().trimmed();
  if (previous.isEmpty()) previous = InputDialog::remembered(path);
  auto* dialog =
      new InputDialog(core::io::forwardArguments(*document->original()), core::io::splitInputSpecs(previous), parent);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  QObject::connect(dialog, &QDialog::accepted, parent, [dialog, box, path, then] {
    box->setText(dialog->specText());
    InputDialog::remember(path, dialog->specText());
    then();
  });
  dialog->open();
}

}  // namespace graft::ui
