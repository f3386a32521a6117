#include "ui/document/shown_revision.h"

#include "core/io/input_specs.h"
#include "core/model/document.h"
#include "core/run/observed_types.h"

namespace graft::ui {

void findShapes(const core::model::Document& document, const core::model::RevisionPtr& revision,
                const QString& inputSpec) {
  if (!core::run::lacksShapes(*revision) || document.observedTypes(revision.get())) return;
  const auto inputs = core::io::resolveInputs(document, inputSpec, 0);
  if (!inputs.inputs) return;
  auto types = core::run::observeTypes(revision, *inputs.inputs, nullptr, nullptr);
  document.setObservedTypes(revision.get(), types ? types : std::make_shared<const core::model::ObservedTypes>());
}

std::shared_ptr<ShownRevision> buildShownRevision(const core::model::Document& document,
                                                  const core::model::RevisionPtr& revision) {
  auto shown = std::make_shared<ShownRevision>();
  shown->program = document.format() == QLatin1String("pt2");
  shown->view = std::make_shared<core::model::GraphView>(core::model::GraphView::build(*revision, document));
  shown->fx = core::model::fxText(*revision);
  if (!shown->program) shown->ir = revision->irText();
  return shown;
}

}  // namespace graft::ui
