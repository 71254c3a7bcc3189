"""Rules of drill families, used when a drill's spec asks for them: fusion's launches and bytes proof, a device's
launch limits and a heuristic checked as a pure function. Nothing here names a drill."""
