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

// Builds what `revision` of `document` shows; reads only the immutable revision and what the
// document fixed at load (its format and input and output names).
std::shared_ptr<ShownRevision> buildShownRevision(const core::model::Document& document, const core::model::RevisionPtr& revision);

}  // namespace graft::ui
