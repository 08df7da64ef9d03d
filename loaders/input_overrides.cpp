#include "loaders/input_overrides.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace mo {

void apply_input_overrides(const std::vector<std::string>& names, std::vector<PartialShape>& shapes,
                           const ConversionOptions& options, const std::string& path) {
    size_t position = 0;
    std::vector<bool> given(names.size());
    for (const InputSpec& spec : options.inputs) {
        size_t index = position++;
        if (!spec.name.empty()) {
            index = static_cast<size_t>(std::find(names.begin(), names.end(), spec.name) - names.begin());
            if (index == names.size()) {
                std::string list;
                for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
                throw Error("the model has no input '" + spec.name + "'", path, "the model's inputs are: " + list);
            }
        } else if (index >= names.size()) {
            throw Error("--input / --input_shape give " + std::to_string(options.inputs.size()) +
                            " entries but the model has " + std::to_string(names.size()) + " inputs",
                        path, "give one shape per model input or name the inputs");
        }
        // A second entry for an input would silently replace the first.
        if (given[index])
            throw Error("--input gives input '" + names[index] + "' twice", path, "give each input once");
        given[index] = true;
        if (spec.shape) shapes[index] = *spec.shape;
    }
}

}  // namespace mo
