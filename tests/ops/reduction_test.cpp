// tests for ops/reduction.cpp: being written
