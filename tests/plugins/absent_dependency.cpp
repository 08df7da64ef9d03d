// A library that a test plugin links but `mo` cannot find at run time.
int mo_test_absent_dependency() { return 1; }
