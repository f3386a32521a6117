#include "app/cli/model_output.h"

#include <torch/csrc/jit/runtime/print_handler.h>

#include <cstdio>
#include <iostream>
#include <mutex>
#include <streambuf>
#include <string>

namespace graft::cli {

namespace {

std::mutex& sinkLock() {
  static std::mutex m;
  return m;
}

// Bytes to stderr with control characters escaped (newlines and tabs kept), up to the limit, then
// one line saying the rest was dropped.
void emit(const char* data, std::size_t n) {
  static std::size_t written = 0;
  static bool noted = false;
  std::lock_guard<std::mutex> lock(sinkLock());
  for (std::size_t i = 0; i < n; ++i) {
    if (written >= kModelOutputLimit) {
      if (!noted) std::fputs("\ngraft-cli: the model printed more; the rest is not shown\n", stderr);
      noted = true;
      return;
    }
    const auto c = static_cast<unsigned char>(data[i]);
    if (c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f)) {
      std::fputc(c, stderr);
      ++written;
    } else {
      written += std::fprintf(stderr, "\\x%02x", c);
    }
  }
}

class ModelOutputBuffer : public std::streambuf {
 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) {
      const char ch = traits_type::to_char_type(c);
      emit(&ch, 1);
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    emit(s, std::size_t(n));
    return n;
  }
};

void printHandler(const std::string& text) { emit(text.data(), text.size()); }

}  // namespace

void captureModelOutput() {
  static ModelOutputBuffer buffer;
  std::cout.rdbuf(&buffer);
  torch::jit::setPrintHandler(&printHandler);
}

}  // namespace graft::cli
