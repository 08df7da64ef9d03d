# The plugin API's headers: these and nothing else of the tree are installed, as
# <prefix>/include/mo/<path> (plugins include <mo/plugin.hpp>, <mo/core/graph.hpp>, ...), and
# only they carry MO_API. Their own includes of each other are relative ("shape.hpp",
# "../core/graph.hpp"), so they resolve inside include/mo/ wherever it is installed.
set(MO_PUBLIC_HEADERS
  core/api.hpp core/attributes.hpp core/element_type.hpp core/error.hpp core/eval_budget.hpp core/float16.hpp
  core/framework_attributes.hpp core/graph.hpp core/log.hpp core/mapped_file.hpp core/op_schema.hpp
  core/options.hpp core/shape.hpp core/subgraph.hpp core/tensor.hpp
  extractors/extract_context.hpp extractors/extractor_registry.hpp
  loaders/loader_registry.hpp
  transforms/configured.hpp transforms/pattern.hpp transforms/registry.hpp transforms/transformation.hpp)

# The same tree in the build directory, as links to the sources: what libmo's users in this
# tree (the example plugins, the tests' plugins) compile against is exactly what is installed.
set(MO_PUBLIC_INCLUDE_DIR ${PROJECT_BINARY_DIR}/public_include)
foreach(header ${MO_PUBLIC_HEADERS})
  get_filename_component(dir ${MO_PUBLIC_INCLUDE_DIR}/mo/${header} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${header} ${MO_PUBLIC_INCLUDE_DIR}/mo/${header} SYMBOLIC)
endforeach()
file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/mo/plugin.hpp ${MO_PUBLIC_INCLUDE_DIR}/mo/plugin.hpp SYMBOLIC)
