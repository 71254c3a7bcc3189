"""What every stage of a grade shares: a drill's spec as data, input makers, the learner's line, atomic file writes."""
