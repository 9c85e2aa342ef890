"""Built-in test suites that gpubench runs against an (emulated) GPU, e.g. `gpubench run --dev MOCKKFD+AMD test_ops`."""
