"""The grader: runs a learner's file in a child process against a drill's spec and returns a verdict."""
