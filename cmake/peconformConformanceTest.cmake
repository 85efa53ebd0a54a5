# peconform_add_conformance_test(NAME <name> PLUGIN <target> [KERNELS <kernel>...]
#                                [PROFILE smoke|ci|deep] [ARGS <arg>...])
#
# Registers a ctest test <name> that holds the kernels of the shared library <target> (a C ABI
# plugin, <peconform/kernel_abi.h>) to peconform's reference:
#
#   peconform run --plugin $<TARGET_FILE:target> [--kernel K]... --profile P --no-save
#                 --out <build tree>/peconform/<name> ARGS...
#
# Every kernel of the library when KERNELS is not given; profile ci when PROFILE is not. The
# reports (report.json, junit.xml, summary.md, report.html) land in
# ${CMAKE_BINARY_DIR}/peconform/<name>. A failure prints the shrunk case and a one-line replay
# command; --no-save keeps the test from writing into the source tree (pass
# ARGS --regressions DIR to replay a corpus you keep). The test carries the label `peconform`.
function(peconform_add_conformance_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;PLUGIN;PROFILE" "KERNELS;ARGS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "peconform_add_conformance_test: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME)
    message(FATAL_ERROR "peconform_add_conformance_test: NAME is required")
  endif()
  if(NOT arg_PLUGIN)
    message(FATAL_ERROR "peconform_add_conformance_test(${arg_NAME}): PLUGIN <target> is required")
  endif()
  if(NOT TARGET ${arg_PLUGIN})
    message(FATAL_ERROR "peconform_add_conformance_test(${arg_NAME}): PLUGIN ${arg_PLUGIN} is not a target "
                        "(declare it with add_library(${arg_PLUGIN} SHARED ...) first)")
  endif()
  get_target_property(plugin_type ${arg_PLUGIN} TYPE)
  if(NOT plugin_type MATCHES "^(SHARED_LIBRARY|MODULE_LIBRARY)$")
    message(FATAL_ERROR "peconform_add_conformance_test(${arg_NAME}): ${arg_PLUGIN} is a ${plugin_type}; "
                        "peconform loads a SHARED or MODULE library")
  endif()
  if(NOT arg_PROFILE)
    set(arg_PROFILE ci)
  endif()
  if(NOT arg_PROFILE MATCHES "^(smoke|ci|deep)$")
    message(FATAL_ERROR "peconform_add_conformance_test(${arg_NAME}): PROFILE ${arg_PROFILE} is none of smoke, ci, deep")
  endif()

  set(kernel_args "")
  foreach(kernel IN LISTS arg_KERNELS)
    list(APPEND kernel_args --kernel ${kernel})
  endforeach()
  set(out "${CMAKE_BINARY_DIR}/peconform/${arg_NAME}")
  add_test(NAME ${arg_NAME}
           COMMAND $<TARGET_FILE:peconform::peconform> run --plugin $<TARGET_FILE:${arg_PLUGIN}> ${kernel_args}
                   --profile ${arg_PROFILE} --no-save --out ${out} ${arg_ARGS})
  set_tests_properties(${arg_NAME} PROPERTIES LABELS peconform)
endfunction()
