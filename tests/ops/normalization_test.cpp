// tests for ops/normalization.cpp: being written
