#include "ui/document/shown_revision.h"

#include "core/model/document.h"

namespace graft::ui {

std::shared_ptr<ShownRevision> buildShownRevision(const core::model::Document& document, const core::model::RevisionPtr& revision) {
  auto shown = std::make_shared<ShownRevision>();
  shown->program = document.format() == QLatin1String("pt2");
  shown->view = std::make_shared<core::model::GraphView>(core::model::GraphView::build(*revision, document));
  shown->fx = core::model::fxText(*revision);
  if (!shown->program) shown->ir = revision->irText();
  return shown;
}

}  // namespace graft::ui
