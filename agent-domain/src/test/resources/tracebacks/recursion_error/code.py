def countdown(n):
    return countdown(n - 1)


countdown(5)
