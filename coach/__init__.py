"""Practice around the grader: the learner's state, hints, progress, mock interviews."""
