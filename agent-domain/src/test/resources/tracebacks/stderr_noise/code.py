import sys
import traceback

print("debug: starting", file=sys.stderr)
try:
    {}["missing"]
except KeyError:
    traceback.print_exc()
print("debug: recovered", file=sys.stderr)


def last(items):
    return items[len(items)]


last([1, 2])
