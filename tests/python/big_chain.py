"""A long ONNX chain of element-wise ops built with onnx.helper: a model whose conversion takes a
measurable time (tens to hundreds of milliseconds) for the thread and GIL tests."""
import numpy as np


def chain_model(nodes=3000, width=64, batch=1):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    inits, graph_nodes = [], []
    prev = "x"
    for i in range(nodes):
        w = numpy_helper.from_array(np.full((width,), 1.0 + (i % 7) * 1e-3, np.float32), f"w{i}")
        inits.append(w)
        out = f"t{i}" if i < nodes - 1 else "y"
        graph_nodes.append(helper.make_node("Mul" if i % 2 else "Add", [prev, f"w{i}"], [out], name=f"n{i}"))
        prev = out
    graph = helper.make_graph(graph_nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, width])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, width])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
