"""The spoken checkpoints: `drill checkpoints` and the scoring of a typed answer against concept matchers."""
