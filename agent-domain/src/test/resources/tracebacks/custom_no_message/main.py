class Boom(Exception):
    pass


def explode():
    raise Boom()


explode()