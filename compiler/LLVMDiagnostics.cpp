//===- LLVMDiagnostics.cpp - LLVM's diagnostics kept from the user -------===//
#include "compiler/LLVMDiagnostics.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"

namespace blockjit {

LLVMDiagnosticsCollector::LLVMDiagnosticsCollector(llvm::LLVMContext &context)
    : context(context), previous(context.getDiagnosticHandlerCallBack()),
      previousContext(context.getDiagnosticContext()) {
  context.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo *info, void *out) {
        if (info->getSeverity() != llvm::DS_Error)
          return;
        llvm::raw_string_ostream os(*static_cast<std::string *>(out));
        llvm::DiagnosticPrinterRawOStream printer(os);
        info->print(printer);
        os << "\n";
      },
      &errorText);
}

LLVMDiagnosticsCollector::~LLVMDiagnosticsCollector() {
  context.setDiagnosticHandlerCallBack(previous, previousContext);
}

} // namespace blockjit
