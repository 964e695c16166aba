//===- blockjit-opt.cpp - mlir-opt with the blockjit dialects and passes -===//
#include "compiler/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  blockjit::registerDialects(registry);
  blockjit::registerPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "blockjit optimizer driver\n", registry));
}
