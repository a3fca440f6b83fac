PRICES = {"apple": 3}


def price(item):
    try:
        return PRICES[item]
    except KeyError:
        raise ValueError(f"unknown item {item}")


print(price("pear"))