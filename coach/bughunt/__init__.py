"""Find the bug: complete kernels with one planted mistake (`drill start NAME --bug`), the note after a passing
grade, the hints of a bug file, the mock's code-review round and "why is this slow".

The mistakes are data (drills/bugs/<solution>.yaml): small find/replace patches of a drill's reference solution,
applied when a file is written, so a mistake stays valid when the reference changes (tests/test_bughunt_catalog.py
grades every one). This package never changes the grader: a bug file is graded like any other file.
"""
