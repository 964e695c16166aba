# What `cmake --install` puts under the prefix, in two components:
#
#   blockjit-dev    include/blockjit/ (the public headers, at their paths in
#                   this tree, so that they include each other unchanged),
#                   lib/libblockjit.a and lib/cmake/blockjit/ (the package:
#                   find_package(blockjit CONFIG) gives blockjit::blockjit)
#   blockjit-tools  bin/blockjit-dump, bin/blockjit-opt, bin/softmax and
#                   lib/libblockjit_c.so
#
# `cmake --install build --prefix P` installs both;
# `--component blockjit-dev` only what a project linking blockjit needs.
include(CMakePackageConfigHelpers)
set(BLOCKJIT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/blockjit)

# The headers a kernel and its main include, and every blockjit header they
# include (examples/external builds against exactly these).
set(BLOCKJIT_PUBLIC_HEADERS
  compiler/Artifact.h
  compiler/Environment.h
  compiler/Specialization.h
  dialect/ArgFacts.h
  dialect/DType.h
  frontend/Kernel.h
  frontend/Tensor.h
  frontend/blockjit.h
  runtime/Autotune.h
  runtime/DeviceBuffer.h
  runtime/Event.h
  runtime/Executor.h
  runtime/Launch.h
  runtime/Operation.h
  runtime/PreparedLaunch.h
  runtime/Registry.h
  runtime/blockjit_c.h)
foreach(header ${BLOCKJIT_PUBLIC_HEADERS})
  get_filename_component(directory ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header}
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/blockjit/${directory}
    COMPONENT blockjit-dev)
endforeach()

install(TARGETS blockjit EXPORT blockjitTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT blockjit-dev)
install(EXPORT blockjitTargets NAMESPACE blockjit::
  DESTINATION ${BLOCKJIT_INSTALL_CMAKEDIR} COMPONENT blockjit-dev)

# blockjitConfig.cmake rebuilds the LLVM/MLIR link line with
# StaticLLVM.cmake from the LLVM this blockjit was built against.
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/blockjitConfig.cmake.in
  ${PROJECT_BINARY_DIR}/blockjitConfig.cmake
  INSTALL_DESTINATION ${BLOCKJIT_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/blockjitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/blockjitConfig.cmake
  ${PROJECT_BINARY_DIR}/blockjitConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/StaticLLVM.cmake
  DESTINATION ${BLOCKJIT_INSTALL_CMAKEDIR} COMPONENT blockjit-dev)

install(TARGETS blockjit-dump blockjit-opt softmax
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT blockjit-tools)
install(TARGETS blockjit_c
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT blockjit-tools)
