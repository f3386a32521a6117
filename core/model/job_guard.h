#pragma once
// The boundary of every job (load, edit, rewrite, run, compare, profile, save, layout, a GUI
// event): whatever libtorch or the standard library throws inside is turned into a message there,
// so no exception ever ends the process.
#include <QtCore/QString>

#include <exception>
#include <string>
#include <utility>

namespace graft::core::model {

// The message of the exception being handled (call inside a catch block): libtorch's c10::Error
// without its C++ backtrace, std::exception's what(), or "unknown exception". At most four lines.
QString currentExceptionText();
// The head of a libtorch message (up to four lines, joined by " | "): TorchScript errors carry the
// source and a traceback after it.
QString firstLines(const std::string& what);

// Runs `job()`; if it throws, returns `onError(message)` instead (same return type).
template <class Job, class OnError>
auto guarded(Job&& job, OnError&& onError) -> decltype(job()) {
  try {
    return std::forward<Job>(job)();
  } catch (...) {
    return std::forward<OnError>(onError)(currentExceptionText());
  }
}

}  // namespace graft::core::model
