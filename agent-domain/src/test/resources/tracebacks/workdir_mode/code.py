def head(items):
    return items[0]


print(head([]))
