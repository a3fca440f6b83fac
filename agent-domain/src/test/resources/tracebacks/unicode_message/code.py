def greet(name):
    raise RuntimeError(f"keine Begrüßung für {name} ✗")


greet("Zoë")
