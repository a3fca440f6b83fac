def check(candidate):
    assert candidate(2) == 4 4


check(double)
