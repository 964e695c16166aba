# Link LLVM and MLIR statically.
#
# Debian builds LLVM with LLVM_LINK_LLVM_DYLIB, so MLIR's exported targets link
# libLLVM.so; mixing that with static component libraries registers every
# cl::opt twice and aborts at start-up. We therefore use none of the exported
# library targets and link every static archive as one group that the linker
# rescans: it pulls in only the members that are referenced, and
# --gc-sections drops the rest, so executables run on hosts without LLVM 22
# installed.
#
#   blockjit_static_llvm(TARGET [IMPORTED]
#     LIBRARY_DIR <LLVM_LIBRARY_DIR> INCLUDE_DIRS <dirs>...
#     DEFINITIONS "<LLVM_DEFINITIONS>" RTTI <LLVM_ENABLE_RTTI>)
#
# defines the interface library TARGET (IMPORTED: in a package config): the
# archives, their system libraries, headers and definitions. The build calls it with what
# find_package(MLIR) found; the installed blockjitConfig.cmake calls it with
# the same values, recorded at build time, so that a project using blockjit
# needs no find_package(LLVM/MLIR) (whose targets would bring libLLVM.so).

function(blockjit_static_llvm target)
  cmake_parse_arguments(ARG "IMPORTED" "LIBRARY_DIR;DEFINITIONS;RTTI" "INCLUDE_DIRS"
                        ${ARGN})
  file(GLOB mlir_archives ${ARG_LIBRARY_DIR}/libMLIR*.a)
  file(GLOB llvm_archives ${ARG_LIBRARY_DIR}/libLLVM*.a)
  list(FILTER mlir_archives EXCLUDE REGEX "libMLIR(Test|CAPI).*")
  if(NOT mlir_archives OR NOT llvm_archives)
    message(FATAL_ERROR "No static LLVM/MLIR archives in ${ARG_LIBRARY_DIR}: "
                        "install llvm-22-dev and libmlir-22-dev")
  endif()

  find_package(ZLIB REQUIRED)
  find_library(BLOCKJIT_ZSTD_LIB NAMES zstd REQUIRED)
  find_package(Threads REQUIRED)

  if(ARG_IMPORTED)
    add_library(${target} INTERFACE IMPORTED)
  else()
    add_library(${target} INTERFACE)
  endif()
  string(JOIN "," group ${mlir_archives} ${llvm_archives})
  target_link_libraries(${target} INTERFACE
    "$<LINK_GROUP:RESCAN,${group}>"
    ZLIB::ZLIB ${BLOCKJIT_ZSTD_LIB} Threads::Threads ${CMAKE_DL_LIBS} m)
  target_link_options(${target} INTERFACE -Wl,--gc-sections)
  # Their headers and definitions come with them (system headers: no
  # warnings).
  target_include_directories(${target} SYSTEM INTERFACE ${ARG_INCLUDE_DIRS})
  separate_arguments(definitions UNIX_COMMAND "${ARG_DEFINITIONS}")
  target_compile_definitions(${target} INTERFACE ${definitions})
  # Code deriving from LLVM's classes must be built as LLVM was: without
  # RTTI when LLVM has none (Debian's LLVM 22 has RTTI).
  if(NOT ARG_RTTI)
    target_compile_options(${target} INTERFACE
      $<$<COMPILE_LANGUAGE:CXX>:-fno-rtti>)
  endif()
endfunction()
