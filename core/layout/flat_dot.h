#pragma once
// The flat op graph (every op node, no module groups) as Graphviz DOT text, for `--dot` export
// and as the baseline the per-group layout is measured against.
#include "core/model/graph_view.h"

#include <QtCore/QByteArray>

namespace graft::core::layout {

QByteArray flatDot(const model::GraphView& view);

// Lays out `dot` text with Graphviz's dot engine on the calling thread; returns milliseconds,
// or -1 when it fails. For benchmarks (Graphviz is not thread-safe: keep it off busy threads).
double timeDotLayout(const QByteArray& dot);

}  // namespace graft::core::layout
