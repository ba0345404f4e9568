/* A library native_unwind_test loads and unloads at run time (dlopen, dlclose). */
int native_unwind_test_function(int x) { return x * 3 + 1; }
