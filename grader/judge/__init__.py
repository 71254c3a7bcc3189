"""Judging: one graded call turned into evidence (values, accesses, writes), then evidence into a diagnosis."""
