source = "def broken(:\n    pass"


def load(src):
    exec(src)


load(source)
