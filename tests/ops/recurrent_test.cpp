// tests for ops/recurrent.cpp: being written
