"""`drill mock`: the timed interview as a state machine, its terminal side, and questions about the learner's own
kernel."""
