def lengths(words):
    return [len(w) for w in words]


print(lengths(["a", None]))