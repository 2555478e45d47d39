# PYTHONSTARTUP of the agent-tasks bench's Python REPL: each prompt, as the
# REPL asks for it (right before it reads the next line), appends the
# wall-clock time in ns to the file named by AGENT_TASK_STAMPS, so the bench
# can tell how long after the prompt a tool call returned.
import os
import sys
import time


class _StampedPrompt:
    def __init__(self, text):
        self.text = text

    def __str__(self):
        path = os.environ.get('AGENT_TASK_STAMPS')
        if path:
            with open(path, 'a') as f:
                f.write(f'{time.time_ns()}\n')
        return self.text


sys.ps1 = _StampedPrompt('>>> ')
sys.ps2 = _StampedPrompt('... ')
