// tests for ops/interpolate.cpp: being written
