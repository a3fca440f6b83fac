def check(candidate):
    assert candidate([1, 3]) == 2
    assert candidate([]) == 0


check(mean)
