# cmake --install: the tools, libmo, the headers of the plugin API, the CMake package
# (find_package(mo), mo_add_plugin) and the plugin directory `mo` loads by itself.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MO_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/mo)
set(MO_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mo)
# Must stay <libdir of libmo>/mo/plugins: installed_plugin_dir() derives it from libmo's path.
set(MO_INSTALL_PLUGINDIR ${CMAKE_INSTALL_LIBDIR}/mo/plugins)

# The plugin API (cmake/public_headers.cmake) under include/mo/.
foreach(header ${MO_PUBLIC_HEADERS})
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${header} DESTINATION ${MO_INSTALL_INCLUDEDIR}/${dir})
endforeach()
install(FILES include/mo/plugin.hpp DESTINATION ${MO_INSTALL_INCLUDEDIR})

install(TARGETS mo mo-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS mo_shared EXPORT moTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY DESTINATION ${MO_INSTALL_PLUGINDIR})
# Transformations configs shipped with mo (configs/ssd.json, ...).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/mo/configs)

install(EXPORT moTargets NAMESPACE mo:: DESTINATION ${MO_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/moConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/moConfig.cmake
  INSTALL_DESTINATION ${MO_INSTALL_CMAKEDIR} PATH_VARS MO_INSTALL_PLUGINDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/moConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/moConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/moConfigVersion.cmake
  cmake/mo_plugin.cmake DESTINATION ${MO_INSTALL_CMAKEDIR})
