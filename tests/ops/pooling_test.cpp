// tests for ops/pooling.cpp: being written
