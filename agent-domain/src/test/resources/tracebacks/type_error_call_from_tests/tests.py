def check(candidate):
    assert candidate([1, 2]) == [2, 4]


check(scale)
