#pragma once
// What every harness shares: a QCoreApplication, a private scratch folder, and writing the
// fuzzer's bytes to a file there, for the entry points that read files.
#include <QtCore/QString>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace graft::fuzz {

// Call from LLVMFuzzerInitialize.
void init(int* argc, char*** argv);

// The scratch folder, removed at exit.
const QString& scratchDir();

// Writes `size` bytes to scratchDir()/name and returns its absolute path (empty if it failed).
QString writeScratch(const QString& name, const std::uint8_t* data, std::size_t size);

// Runs `job` the way the app runs a job: an exception ends the job, never the process
// (model::guarded). What it threw is dropped; sanitizer reports and crashes are what count.
void asJob(const std::function<void()>& job);

}  // namespace graft::fuzz
