#include "ui/document/saved_for_host.h"

#include "core/remote/remote_model.h"
#include "ui/document/off_thread.h"

namespace graft::ui {

std::shared_ptr<const core::remote::RemoteModel> savedForHost(const core::model::Document& document,
                                                              const core::model::RevisionPtr& revision,
                                                              QString* error) {
  return runOffGuiThread([&]() -> std::shared_ptr<const core::remote::RemoteModel> {
    auto model = core::remote::savedForRemote(document, revision, error);
    return model ? std::make_shared<const core::remote::RemoteModel>(std::move(*model)) : nullptr;
  });
}

}  // namespace graft::ui
