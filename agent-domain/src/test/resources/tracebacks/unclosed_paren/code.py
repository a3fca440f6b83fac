def total(values):
    return sum(values


print(total([1, 2]))
