/* Keeps the test-support library non-empty. */
typedef int mbt_test_support_unused;
