#pragma once
// A revision saved as a host's job sends it (core/remote/remote_model.h): the save runs off the
// GUI thread while it waits, and the bytes are an immutable snapshot the job may hold after the
// document is gone. The Compare, Profile and History docks save this way before a remote run.
#include "core/model/revision.h"

#include <QtCore/QString>
#include <memory>

namespace graft::core::model { class Document; }
namespace graft::core::remote { struct RemoteModel; }

namespace graft::ui {

// Null with `error` (the save's) when the revision cannot be saved.
std::shared_ptr<const core::remote::RemoteModel> savedForHost(const core::model::Document& document,
                                                              const core::model::RevisionPtr& revision,
                                                              QString* error);

}  // namespace graft::ui
