def mean(values):
    assert values, "values must not be empty"
    return sum(values) / len(values)
