# Link LLVM and MLIR statically.
#
# Debian builds LLVM with LLVM_LINK_LLVM_DYLIB, so MLIR's exported targets link
# libLLVM.so; mixing that with static component libraries registers every
# cl::opt twice and aborts at start-up. We therefore use none of the exported
# library targets and link every static archive in one --start-group: the
# linker pulls in only the members that are referenced, and --gc-sections
# drops the rest, so executables run on hosts without LLVM 22 installed.
file(GLOB BLOCKJIT_MLIR_ARCHIVES ${LLVM_LIBRARY_DIR}/libMLIR*.a)
file(GLOB BLOCKJIT_LLVM_ARCHIVES ${LLVM_LIBRARY_DIR}/libLLVM*.a)
list(FILTER BLOCKJIT_MLIR_ARCHIVES EXCLUDE REGEX "libMLIR(Test|CAPI).*")
if(NOT BLOCKJIT_MLIR_ARCHIVES OR NOT BLOCKJIT_LLVM_ARCHIVES)
  message(FATAL_ERROR "No static LLVM/MLIR archives in ${LLVM_LIBRARY_DIR}: "
                      "install llvm-22-dev and libmlir-22-dev")
endif()

find_package(ZLIB REQUIRED)
find_library(BLOCKJIT_ZSTD_LIB NAMES zstd REQUIRED)
find_package(Threads REQUIRED)

add_library(blockjit_llvm_static INTERFACE)
target_link_libraries(blockjit_llvm_static INTERFACE
  -Wl,--start-group ${BLOCKJIT_MLIR_ARCHIVES} ${BLOCKJIT_LLVM_ARCHIVES} -Wl,--end-group
  ZLIB::ZLIB ${BLOCKJIT_ZSTD_LIB} Threads::Threads ${CMAKE_DL_LIBS} m)
target_link_options(blockjit_llvm_static INTERFACE -Wl,--gc-sections)
# Their headers and definitions come with them (system headers: no warnings).
target_include_directories(blockjit_llvm_static SYSTEM INTERFACE
  ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
separate_arguments(BLOCKJIT_LLVM_DEFS UNIX_COMMAND "${LLVM_DEFINITIONS}")
target_compile_definitions(blockjit_llvm_static INTERFACE ${BLOCKJIT_LLVM_DEFS})
