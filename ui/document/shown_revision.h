#pragma once
// What the window shows of one revision, built together off the GUI thread: the GraphView (nodes,
// groups, edges for the canvas, the Modules tree and the find bar), the fx listing and Python code
// (the IR and Code views), and for TorchScript its IR text.
#include "core/model/fx_text.h"
#include "core/model/graph_view.h"
#include "core/model/revision.h"

#include <memory>

namespace graft::core::model { class Document; }

namespace graft::ui {

struct ShownRevision {
  std::shared_ptr<core::model::GraphView> view;
  core::model::FxText fx;
  QString ir;            // a TorchScript model's IR (a program's IR is its fx listing)
  bool program = false;  // a torch.export program
};

// Finds `revision`'s shapes once, where its graph records none and its inputs are known (the
// document's own, `inputSpec`, a sample's), and keeps them in `document` for the view. A run that
// fails keeps an empty answer, so it is not tried again for that revision; unknown inputs keep none.
void findShapes(const core::model::Document& document, const core::model::RevisionPtr& revision,
                const QString& inputSpec);

// Builds what `revision` of `document` shows; reads only the immutable revision and what the
// document fixed at load (its format and input and output names).
std::shared_ptr<ShownRevision> buildShownRevision(const core::model::Document& document,
                                                  const core::model::RevisionPtr& revision);

}  // namespace graft::ui
