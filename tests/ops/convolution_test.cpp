// tests for ops/convolution.cpp: being written
