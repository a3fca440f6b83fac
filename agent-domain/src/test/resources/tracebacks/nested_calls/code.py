def parse(text):
    return int(text)


def total(items):
    result = 0
    for item in items:
        result += parse(item)
    return result


def main():
    print(total(["1", "2", "x3"]))


main()
