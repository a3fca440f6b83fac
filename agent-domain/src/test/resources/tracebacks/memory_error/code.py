def grid(n):
    return [0] * (n * n * n)


print(len(grid(10 ** 5)))
