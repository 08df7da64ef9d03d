# mo_add_plugin(NAME SOURCES src...): builds a mo plugin, a shared library `libNAME.so` that
# links libmo (target mo::mo) and exports nothing but its entry point (MO_DEFINE_PLUGIN).
# Used for the example plugins of this tree and, installed with find_package(mo), out of tree.
function(mo_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "mo_add_plugin(${name}): give the plugin's SOURCES")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE mo::mo)
  target_compile_features(${name} PRIVATE cxx_std_20)
  set_target_properties(${name} PROPERTIES
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON PREFIX "lib")
endfunction()
