# A prompt after 1.5 s of silence: an installer that checks something, then asks.
import os
import sys
import time


def stamp():
    path = os.environ.get('AGENT_TASK_STAMPS')
    if path:
        with open(path, 'a') as f:
            f.write(f'{time.time_ns()}\n')


print('Checking the environment...', flush=True)
time.sleep(1.5)
stamp()
answer = input('Install the 3 missing packages? [y/N] ')
if answer.strip().lower() == 'y':
    print('Installed 3 packages.')
    sys.exit(0)
print('Cancelled.')
sys.exit(1)
