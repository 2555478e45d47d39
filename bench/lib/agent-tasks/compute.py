# A silent computation: 3 s without output, then the result.
import time

time.sleep(3)
print('result: 42')
