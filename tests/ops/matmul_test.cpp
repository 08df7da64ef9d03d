// tests for ops/matmul.cpp: being written
