// tests for ops/internal.cpp: being written
