#include "ui/about_box.h"

#include "core/report/versions.h"

#include <QtWidgets/QMessageBox>

namespace graft::ui {

void showAboutBox(QWidget* parent) {
  const auto v = core::report::versions();
  auto* box = new QMessageBox(
      QMessageBox::Information, QMessageBox::tr("About Graft"),
      QMessageBox::tr("<h3>Graft %1</h3><p>See, rewrite and verify PyTorch model graphs.</p>"
                      "<table><tr><td>Qt</td><td>%2</td></tr>"
                      "<tr><td>libtorch</td><td>%3<br><small>%4<br>built against %5</small></td></tr>"
                      "<tr><td>torchvision ops</td><td><small>%6</small></td></tr>"
                      "<tr><td>Graphviz</td><td>%7</td></tr>"
                      "<tr><td>Threads</td><td>%8</td></tr>"
                      "<tr><td>CUDA</td><td>%9</td></tr></table>"
                      "<p>Running a model executes its TorchScript code: open only models you trust.</p>")
          .arg(v.graft, v.qt, v.torch, v.torchLibrary.toHtmlEscaped(), v.torchBuilt,
               (v.torchvisionLoaded ? v.torchvision : QMessageBox::tr("not loaded: %1").arg(v.torchvision))
                   .toHtmlEscaped(),
               v.graphviz, QString::number(v.threads),
               v.cuda ? QMessageBox::tr("available") : QMessageBox::tr("not available")),
      QMessageBox::Ok, parent);
  box->setObjectName(QStringLiteral("aboutDialog"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

}  // namespace graft::ui
