def add(a, b)
    return a + b

def check(candidate):
    assert candidate(1, 2) == 3


check(add)

