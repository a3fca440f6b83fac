def second_largest(values):
    ordered = sorted(set(values))
    return ordered[-2]
