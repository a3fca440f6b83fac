values = {"a": 1}


def lookup(key):
    return values[key]


print(lookup("b"))
