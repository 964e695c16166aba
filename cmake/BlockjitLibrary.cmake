# blockjit's libraries, each stating what it needs (as MLIR's
# add_mlir_library does):
#
#   blockjit_add_library(NAME [OBJECT]
#     SOURCES <files>...
#     DEPENDS <targets that generate headers it includes>...
#     LINK_LIBS <libraries it calls into>...)
#
# Includes are written from the repository root, and generated .inc files
# mirror it in the build tree: both directories come with the library, and
# with every library that links it, never from a global include_directories.
# LINK_LIBS are public: a library's users get what it needs.
#
# By default NAME is a static archive whose objects are also kept in
# obj.NAME, so that libblockjit.a (every layer in one archive) reuses them
# instead of compiling the sources again. With OBJECT, NAME is an
# object library: every target that links it gets all of its objects, so
# that code reached only from static initializers (kernel registrations) is
# never dropped by the linker.

function(blockjit_add_library name)
  cmake_parse_arguments(ARG "OBJECT" "" "SOURCES;DEPENDS;LINK_LIBS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "blockjit_add_library(${name}): unexpected arguments "
                        "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(ARG_OBJECT)
    set(objects ${name})
    set(targets ${name})
  else()
    set(objects obj.${name})
    set(targets ${objects} ${name})
  endif()

  add_library(${objects} OBJECT ${ARG_SOURCES})
  if(ARG_DEPENDS)
    add_dependencies(${objects} ${ARG_DEPENDS})
  endif()
  if(NOT ARG_OBJECT)
    add_library(${name} STATIC $<TARGET_OBJECTS:${objects}>)
  endif()
  foreach(target ${targets})
    target_include_directories(${target} PUBLIC
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
      $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>)
    target_link_libraries(${target} PUBLIC ${ARG_LINK_LIBS})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY BLOCKJIT_LIBRARIES ${name})
endfunction()

# mlir_tablegen with the include paths .td files are written against: the
# repository root (`include "dialect/BlkBase.td"`) and MLIR's.
macro(blockjit_tablegen ofn)
  mlir_tablegen(${ofn} ${ARGN}
    EXTRA_INCLUDES ${PROJECT_SOURCE_DIR} ${MLIR_INCLUDE_DIRS})
endmacro()

# Writes each blockjit library's direct LINK_LIBS to `output`, one line
# "NAME: LIB;LIB...", for tests/lit/Tools/layering.test to check against the
# layers.
function(blockjit_write_link_graph output)
  get_property(libraries GLOBAL PROPERTY BLOCKJIT_LIBRARIES)
  set(lines "")
  foreach(library ${libraries})
    string(APPEND lines
      "${library}: $<TARGET_PROPERTY:${library},LINK_LIBRARIES>\n")
  endforeach()
  file(GENERATE OUTPUT ${output} CONTENT "${lines}")
endfunction()
