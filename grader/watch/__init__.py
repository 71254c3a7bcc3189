"""Watching the learner's code inside the child: Triton's interpreter hooked for lanes, launches, guarded memory and
atomics; the wrapper's torch calls; Triton's own front end as the compile check; interpreter fixes so it runs what
the compiler would run."""
