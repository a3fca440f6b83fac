def f(n):
    if n > 0:
	return n
    return 0


print(f(1))
