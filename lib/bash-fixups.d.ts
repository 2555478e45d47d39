/// <reference types="node" />
// Types of applyBashFixups: a shell command without the output caps an agent
// appends (lib/bash-fixups.js).

/** What `applyBashFixups` returns. */
export interface BashFixup {
  /** The command without its trailing caps; the input itself when nothing was removed. */
  command: string
  /** Whether anything was removed. */
  stripped: boolean
}

/**
 * Removes the output caps an agent habitually appends to a shell command, for a runner that merges
 * stderr into the output and caps the output itself (as `Shell.run` with `maxOutputBytes` does):
 * a final `| head …` or `| tail …` that is only a count (`-n 20`, `-20`, `--lines=20`, `-c 100`;
 * repeated, so `| head -20 | tail -5` goes too), and a final `2>&1` when nothing else of the
 * command's output is redirected. Runs nothing.
 *
 * The command is read as bash reads it: a `|` inside quotes, `$(…)`, backticks, `${…}`, a subshell
 * or a `{ …; }` group is not the end of the command, so `echo 'a | head -5'` stays as it is. It is
 * left unchanged when in doubt: a here-document, a comment, a `case` block, unbalanced quotes, a
 * quoted or computed count (`head -n "$N"`), `tail -f`, `tail -n +5`, a file argument, a
 * redirection, anything after the cap (`| head -5; echo`), or a producer that would not end
 * without the cap (`yes`, `tail -f`, `watch`, `top`, `ping` without `-c`, `/dev/urandom`,
 * `while`/`until` loops). Removing a cap lets the producer run to its end (`find / | head -1`
 * stops early, `find /` does not), so bound the run's time too.
 *
 * @example
 * ```ts
 * applyBashFixups('npm test 2>&1 | tail -30')   // { command: 'npm test', stripped: true }
 * applyBashFixups("grep -r 'a|b' . | head -20") // { command: "grep -r 'a|b' .", stripped: true }
 * applyBashFixups('make > log 2>&1')            // { command: 'make > log 2>&1', stripped: false }
 * ```
 *
 * Throws `ERR_INVALID_ARG` when `command` is not a string.
 */
export declare function applyBashFixups(command: string): BashFixup
