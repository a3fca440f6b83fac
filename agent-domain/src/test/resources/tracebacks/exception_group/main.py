def validate(values):
    errors = [ValueError(f"bad value {v}") for v in values if v < 0]
    if errors:
        raise ExceptionGroup("validation failed", errors)


validate([1, -2, -3])