def is_even(n):
    return n % 2 == 1

def check(candidate):
    assert candidate(2) is True, "2 is even"


check(is_even)

