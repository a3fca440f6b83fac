def double(x):
    return 2 * x

def check(candidate):
    assert candidate(2) == 4 4


check(double)

