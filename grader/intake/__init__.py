"""The first stage: the learner's file read without running it (readable, which drill, syntax, holes left)."""
