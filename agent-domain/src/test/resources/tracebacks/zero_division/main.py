def divide(a, b):
    return a / b


print(divide(1, 0))