// tests for ops/shape_ops.cpp: being written
