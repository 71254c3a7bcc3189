"""Speed, on a GPU only: the speed gate of fused and compute-bound drills, the copy-bandwidth reference, and the
size sweep of `drill bench`."""
