def mean(values):
    assert values, "values must not be empty"
    return sum(values) / len(values)

def check(candidate):
    assert candidate([1, 3]) == 2
    assert candidate([]) == 0


check(mean)

