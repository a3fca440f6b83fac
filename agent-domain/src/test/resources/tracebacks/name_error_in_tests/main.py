def square(x):
    return x * x

def check(candidate):
    assert candidate(3) == 9


check(sqaure)

