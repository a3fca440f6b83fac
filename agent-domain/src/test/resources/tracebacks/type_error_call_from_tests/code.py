def scale(values, factor):
    return [v * factor for v in values]
