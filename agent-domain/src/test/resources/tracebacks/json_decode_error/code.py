import json


def read(text):
    return json.loads(text)


print(read("{not json}"))
