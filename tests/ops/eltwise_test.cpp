// tests for ops/eltwise.cpp: being written
