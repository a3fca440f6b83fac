import re


def words(text):
    return re.findall(r"\w+", text)


print(words(None))
