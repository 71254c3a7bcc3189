"""`drill progress`: the table of attempts and passes, and the spaced-repetition schedule that says what is due."""
