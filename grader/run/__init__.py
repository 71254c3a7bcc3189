"""Running the learner's code: the parent's side of a grade (timeout, merge), the child that imports the file, the
warm worker that forks it, process groups and the interpreter's time budget."""
