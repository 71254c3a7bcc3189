# drill: vector-add
# expect: error
import torch
import triton
import triton.language as tl


import triton_helpers_that_do_not_exist


def add(x, y):
    return x
