"""Rules of drill families, used when a drill's spec asks for them: fusion's launches and bytes proof, a device's
launch limits and a heuristic checked as a pure function, a backward graded on its gradients, a compile lab graded
by torch.compile's own reports. The pipeline reaches them only through registry.py, by name. Nothing here names a
drill."""
