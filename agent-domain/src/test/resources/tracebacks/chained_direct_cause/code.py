class ConfigError(Exception):
    pass


def load(text):
    try:
        return int(text)
    except ValueError as e:
        raise ConfigError("bad config value") from e


load("abc")
