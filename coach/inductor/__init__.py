"""`drill inductor`: what torch.compile generates for a drill's eager reference, shown beside the learner's kernel
(capture in a child process, the view, device limits and the matmul template's pieces)."""
