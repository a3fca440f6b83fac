# a header comment naming WarmPool.java
import os

if True:
    # an indented comment
    x = '# kept: inside code'
