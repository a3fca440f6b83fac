def check(candidate):
    assert candidate(3) == 9


check(sqaure)
