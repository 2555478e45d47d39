//! A persistent shell that knows when each command ends.
//!
//! [`Shell`] keeps one interactive shell (bash, zsh, dash or another POSIX
//! `sh`, or fish) running in a pseudo-terminal and runs commands in it one
//! at a time, so `cd`, `export` and shell variables carry over from one
//! command to the next, as they would for a person at a terminal. Each run
//! resolves with the command's exit code and exactly the text the command
//! printed.
//!
//! # Who reads the terminal
//!
//! The terminal's input belongs to the command and to whoever types into
//! the session ([`Shell::write`]). Nothing ptypilot sends for its own
//! control — the line that runs a command, the probe lines of the watchdog,
//! the secret that ends a command — may ever reach a program that reads the
//! terminal. A command that reads it in the shell's own process (`read x
//! </dev/tty`, `read -s`, a function asking for a password), a program that
//! opens `/dev/tty` (Python's `getpass`, `ssh`), `head -c 5 </dev/tty`, a
//! leftover process in the shell's process group: each would take whatever
//! arrives there, and an earlier design that typed its probe line into the
//! terminal while such a command waited gave it ptypilot's control text as
//! input.
//!
//! So the control travels by channels no command reads by accident, and the
//! choice is made per shell:
//!
//! - **bash, zsh, dash, other `sh`: a control FIFO.** The shell's standard
//!   input is a FIFO in its private directory (mode 0600 in a 0700
//!   directory), not the terminal: a small `/bin/sh` launcher opens it as
//!   fd 0 and `exec`s the interactive shell (`-i` keeps it interactive:
//!   prompts, job control through its controlling terminal, Ctrl-C aborting
//!   a line). The shell reads every line from there — the start-up
//!   settings, the run lines, the probe lines — and only between commands,
//!   at its prompt. A command's stdin is always redirected (`/dev/null`, or
//!   the terminal's device for [`Stdin::Terminal`]), so no command inherits
//!   the FIFO; its control text is never in the terminal, so no timing can
//!   put it in front of a command that reads the terminal. A probe line may
//!   therefore be written whenever the watchdog wants one (once the command
//!   started, so that the shell has read all of its run line): it waits in
//!   the FIFO until the shell is back at its prompt. (Only a command that
//!   deliberately reads the shell's saved descriptor or `/proc/<pid>/fd/0`
//!   could read the FIFO.)
//!   Probing only when the kernel shows the shell reading its input was the
//!   other way considered; it is weaker: a builtin `read` of the terminal
//!   and the shell reading its next line both look like the shell waiting
//!   in `read(2)`.
//! - **fish: typed at its prompt, never during a command.** fish refuses
//!   to be interactive unless its standard input is its controlling
//!   terminal ("No TTY for interactive shell"), and a non-interactive fish
//!   reads all of its input before it runs any. So fish reads its lines
//!   from the terminal, and ptypilot types one only when fish waits at its
//!   prompt: after the previous command's end marker (which carries the
//!   secret, so no command can print it) and fish's prompt marker, and once
//!   the kernel shows fish itself, in the terminal's foreground, blocked
//!   reading the terminal (the input state, module [`crate::core::input_state`];
//!   where the kernel will not say, or fish never shows as blocked within
//!   [`PROMPT_GRACE`], the markers alone decide). If another process reads
//!   the terminal there for [`PROBE_LIMIT`], the shell is replaced. fish
//!   gets no probe lines at all: its end marker comes from its
//!   `fish_postexec` event, which fish emits after every line, also one an
//!   interrupt cut short, so a prompt during a command never needs
//!   checking (it ends nothing). A fish that does not show its prompt after
//!   a command is replaced after [`PROBE_LIMIT`].
//! - **The end secret** goes through a second FIFO (the end pipe), which
//!   only the shell's own end-of-command code reads (see below).
//!
//! What a person writes to a running command ([`Stdin::Terminal`]) goes to
//! the terminal from when the command is started (fish: from its start
//! marker, since fish reads the run line from the terminal too) until it is
//! done; what the command left unread is then discarded from the terminal,
//! so it reaches neither the next command nor fish's prompt.
//!
//! # How a command's boundaries are found
//!
//! Not by guessing prompts: ptypilot makes the shell print shell-integration
//! markers in the style of OSC 133 (`ESC ] 133 ; … BEL`), each carrying a
//! random per-shell nonce so that output that merely contains such
//! sequences (a log of another terminal session) is not taken for them:
//!
//! - `A;<status>;<nonce>` — the prompt (`PS1`; fish: `fish_prompt`),
//!   printed whenever the shell is ready to read a line; `<status>` is `$?`;
//! - `C;<nonce>` — the command starts (fish: printed by the run line once
//!   it set the terminal's modes, rather than by `fish_preexec`, which fish
//!   emits before any of the line ran);
//! - `D;<nonce>` — the command is done; the shell now waits for a secret
//!   (fish: `fish_postexec`);
//! - `E;<status>;<secret>;<nonce>` — the command ended with exit status
//!   `<status>`; `<secret>` is the one ptypilot sent after seeing `D`.
//!
//! The shell starts without user rc files (bash `--norc --noprofile`, zsh
//! `-f`, fish `--no-config`, `ENV` removed for `sh`/dash), without line
//! editing (fish keeps its own, at its prompt), with tty echo off (`stty
//! -echo` in the launcher, so input written for a command is not shown as
//! its output) and with the marker prompt (made by `printf` in the shell,
//! so the nonce is not in its environment). For each run the command text
//! goes to a private file (mode 0600, in a 0700 directory), behind a
//! prefix on its first line ([`file_prefix`]), and the shell reads one line
//! ([`run_line`]); for bash:
//!
//! ```text
//! { __ptypilot_x=$-; \set +x; \builtin trap -p DEBUG >|…/trap; \builtin trap - DEBUG;
//!   \command printf '\033]133;C;%s\007' NONCE >/dev/tty; } 2>/dev/null;
//! \. /tmp/ptypilot-shell-…/cmd-1 </dev/null;
//! ( __ptypilot_st=$?; \command printf '\033]133;D;%s\007' NONCE >/dev/tty;
//!   \command read -r __ptypilot_s </tmp/ptypilot-shell-…/end;
//!   \command printf '\033]133;E;%s;%s;%s\007' "$__ptypilot_st" "$__ptypilot_s" NONCE >/dev/tty
//! ) >/dev/null 2>&1; PS1=$__ptypilot_ps1
//! ```
//!
//! (one line; shown on seven). `set -x` is off while ptypilot's own
//! commands run (the file's prefix turns it back on for the command), and
//! the braces send their traces to `/dev/null`; every command word is
//! quoted, so aliases cannot take them over. bash runs a `DEBUG` trap
//! before every simple command: the command's trap is kept in a file and
//! taken off before the start marker, set again by the file's prefix, and
//! the end runs in a subshell, where it does not run — so a command that
//! sets `trap 'echo x' DEBUG` sees it run for its own commands only, as at
//! a terminal.
//!
//! # Why the end needs a secret
//!
//! The nonce is no secret from the command: it is in `PS1`, which the shell
//! must keep. A command could print `D` and an end marker itself. So when
//! `D` comes, ptypilot discards what the terminal holds unread (input the
//! command did not read) and sends a fresh random secret through the end
//! pipe, a FIFO the shell reads in the line above. Only the `E` marker
//! carrying that secret ends the command; it did not exist while the
//! command ran. A `D` the command prints gets a secret too, which the shell
//! then reads after the command (any secret sent during the run counts);
//! output after such a `D` stays the command's.
//!
//! A prompt marker during a command is the shell's when it aborted the line
//! (the command was interrupted, `set -u` met an unset variable, dash gave
//! up on a syntax error) — or the command's. So it ends nothing by itself:
//! ptypilot writes a probe line ([`probe_line`]) with a fresh random number
//! to the control FIFO, which the shell reads only once it is back at its
//! prompt. Its answer (the `P` marker, and the next prompt, which shows the
//! number) ends the command as an aborted line with the status the probe
//! saw. If the command was still running, its `D` and `E` come first and
//! the probe is answered after them. (fish needs none of this, see above.)
//!
//! What remains: a command that prints `D` (or a prompt) and then reads the
//! secret (from the end pipe) or the control FIFO itself, or that reads the
//! shell's memory (`/proc/<pid>/mem`, with ptrace rights), can still end its
//! run early with the status it chooses. Doing so takes intent; output
//! cannot do it by accident or by quoting another session, and a command
//! that only reads the terminal never sees any of it.
//!
//! # A broken shell
//!
//! A command runs in the shell itself, so it can break the shell for every
//! later command. After every run the driver checks (module `health`):
//!
//! - the shell's descriptors: 1 and 2 must still be the session's terminal,
//!   0 its control FIFO (fish: the terminal) — `exec >&-`, `exec 2>&-`,
//!   `exec 1>/tmp/file` fail this (Linux `/proc/<pid>/fd`, macOS
//!   `proc_pidfdinfo`, see [`crate::core::fds`]);
//! - its end marker came with the secret (see below for how it can be
//!   lost);
//! - the terminal's modes: they are put back as the shell started with
//!   them when a command changed them (`stty -opost -echo raw`), so every
//!   run starts with the same terminal; that needs no new shell. (fish
//!   hands its commands the modes the last one left: its run line sets
//!   the modes it started with first.)
//!
//! A shell that fails is replaced before the next run: the run returns what
//! it got, with [`RunResult::warning`] saying why, and the next shell
//! starts in the old one's directory with the snapshot and session
//! variables as every new shell (other state of the old shell is lost).
//!
//! Every command word ptypilot sends is quoted, so aliases (`alias .=…`)
//! cannot take them over; functions can (`command`, `builtin`, `printf`,
//! `read`; bash and zsh let even `.` and `set` be functions). A command that
//! defines such a function breaks the markers. When a probe's prompt shows
//! its number but the probe marker never came, `printf` no longer prints
//! markers: the run ends with an unknown status (`exit_code: None`) and the
//! shell is replaced before the next run (the watchdog, see `watchdog`,
//! replaces a shell whose markers stopped appearing altogether). A function
//! named `.` that leaves the markers alone makes later runs run nothing;
//! it is not detected. fish runs its marker commands through `builtin`,
//! which no function can shadow.
//!
//! `.` (fish: `source`) runs the file in the current shell, so multi-line
//! commands, here-docs, quotes and a missing final newline need no
//! escaping, and `cd`/`export` persist. (In fish, `exit` in a sourced file
//! ends that file, not the shell.) The shell's own messages about the
//! command (command not found, syntax errors) name the file; the
//! [`Tracker`] puts the shell's name in its place, as for a command typed
//! at the prompt, and removes the file's prefix where the shell shows the
//! first line (`set -v`, a syntax error). With a per-run `cwd` or `env` the
//! file runs in a subshell instead, so those apply to that command only
//! (fish has no subshells: a block with local variables, and the
//! `fish_postexec` handler returns to the directory). Output between `C`
//! and `D` is the command's; everything else (the prompt, fish's echo of
//! the line, job notices) is dropped; dash, which reports finished
//! background jobs when it next runs something, reports them to
//! `/dev/null` first. When the shell aborts the line (the command was
//! interrupted, or a syntax error made dash give up) no `D` comes: the next
//! prompt, confirmed by a probe, ends the command and its `$?` is the
//! status.
//!
//! A command's stdin is `/dev/null` ([`Stdin::Null`]), so one that reads
//! input ends instead of waiting forever; with [`Stdin::Terminal`] it reads
//! the terminal, and [`Shell::write`] sends it input.
//!
//! The [`Tracker`] is that state machine, fed by the [`MarkerParser`]; both
//! work on text in arbitrary pieces and are unit-tested without processes.
//!
//! # Stopping a command
//!
//! A timeout, an `AbortSignal` or [`Shell::abort`] interrupts the terminal's
//! foreground job the way Ctrl-C does (SIGINT to its process group, and to
//! each new foreground job), then after [`INTERRUPT_GRACE`] sends SIGTERM to
//! that job's process tree, then SIGKILL, and as a last resort kills the
//! shell (the next run starts a new one).
//!
//! # Modules
//!
//! - this module: [`Shell`], its options, runs and results;
//! - `kind`: the shell's dialect ([`ShellKind`]), how it is launched and
//!   what it reads first, and the shells refused;
//! - `script`: what the shell reads: the marker prompt, the run line, the
//!   probe line, the command files, their private directory and its FIFOs;
//! - `markers`: the [`MarkerParser`];
//! - `tracker`: the [`Tracker`] state machine;
//! - `driver`: starting a shell and running one command in it;
//! - `health`: after each run, whether the shell is still usable;
//! - `stop`: stopping a command ([`INTERRUPT_GRACE`] steps) and ending a shell;
//! - `fixups`: [`apply_bash_fixups`], removing the output caps agents append
//!   to commands (runs nothing);
//! - `watchdog`: noticing a shell whose markers stopped appearing, to replace it.

mod driver;
mod fixups;
mod health;
mod kind;
mod markers;
mod script;
mod stop;
mod tracker;
mod watchdog;

pub use fixups::{BashFixup, apply_bash_fixups};
pub use kind::{ShellKind, check_shell_name};
pub use markers::{Marker, MarkerParser, Piece};
pub use script::{
    RunLine, Stdin, check_env, file_prefix, new_nonce, probe_line, prompt, prompt_line, run_line,
};
pub use tracker::{Finish, Phase, Probe, Tracker};
pub use watchdog::{PROBE_AFTER, PROBE_LIMIT, PROMPT_GRACE};

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::error::{Error, ErrorCode, Result};
use super::proc_tree::{Pid, ProcRef};
use driver::Live;
use stop::{end_shell, kill_all, kill_and_wait};

/// Time between the steps that stop a command (SIGINT phase, SIGTERM,
/// SIGKILL, killing the shell).
pub const INTERRUPT_GRACE: Duration = Duration::from_millis(1000);
/// How long a new shell may take to show its first prompt.
pub const STARTUP_LIMIT: Duration = Duration::from_secs(10);
/// How long `close()` lets the shell's processes handle SIGTERM before SIGKILL.
pub const CLOSE_GRACE: Duration = Duration::from_millis(1000);
/// Default bound on the output a run's result keeps: 8 MiB (head and tail).
pub const DEFAULT_MAX_OUTPUT: usize = 8 << 20;

/// The shell variable that keeps the marker prompt, to restore `PS1` after
/// each command.
const PS1_KEEP: &str = "__ptypilot_ps1";

/// How to start the shell.
#[derive(Debug, Clone)]
pub struct ShellOptions {
    /// The shell program (looked up on PATH); `None`: bash where installed, else sh.
    pub shell: Option<String>,
    /// Its starting directory; `None` is the current directory.
    pub cwd: Option<PathBuf>,
    /// Variables set (`Some`) or removed (`None`) over the inherited environment.
    pub env: Vec<(String, Option<String>)>,
    /// The environment to inherit; `None` is this process's environment.
    pub base_env: Option<Vec<(String, String)>>,
    /// Terminal width.
    pub cols: u16,
    /// Terminal height.
    pub rows: u16,
    /// Variables exported (`Some`) or unset (`None`) in the shell once it
    /// started, after the snapshot: they win over what the snapshot sets.
    /// Names are shell variable names (see [`check_env`]).
    pub session_env: Vec<(String, Option<String>)>,
    /// A file sourced when the shell starts (functions, aliases, options,
    /// exports of a user's shell), with its output discarded and stdin from
    /// `/dev/null`. Relative to this process's current directory.
    pub snapshot: Option<PathBuf>,
    /// The sandbox every command runs in (the shell itself runs in it).
    /// Its workspace stays the shell's first working directory.
    pub sandbox: crate::core::sandbox::Policy,
}

impl Default for ShellOptions {
    fn default() -> Self {
        ShellOptions {
            shell: None,
            cwd: None,
            env: Vec::new(),
            base_env: None,
            cols: 80,
            rows: 24,
            session_env: Vec::new(),
            snapshot: None,
            sandbox: crate::core::sandbox::Policy::default(),
        }
    }
}

impl ShellOptions {
    /// Checks what can be checked before the shell starts
    /// (`ERR_INVALID_ARG` naming the option).
    pub fn check(&self) -> Result<()> {
        check_env(&self.session_env, "options.sessionEnv")?;
        if let Some(path) = &self.snapshot {
            let text = path.to_string_lossy();
            if text.is_empty() || text.chars().any(char::is_control) {
                return Err(Error::invalid_arg(format!(
                    "options.snapshotPath must be a file path without control characters, got {text:?}"
                )));
            }
        }
        Ok(())
    }
}

/// One command to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The command text: one or more lines of shell code.
    pub command: String,
    /// Run it in this directory (in a subshell); relative to the shell's
    /// current directory.
    pub cwd: Option<String>,
    /// Variables set (`Some`) or unset (`None`) for this command only (in a
    /// subshell).
    pub env: Vec<(String, Option<String>)>,
    /// Stop the command after this long (`timed_out`).
    pub timeout: Option<Duration>,
    /// Output kept in the result (head and tail), in bytes.
    pub max_output: usize,
    /// The command's standard input: `/dev/null`, or the terminal (then
    /// [`Shell::write`] sends it input).
    pub stdin: Stdin,
}

impl RunOptions {
    /// Options that run `command` with the defaults.
    pub fn new(command: impl Into<String>) -> Self {
        RunOptions {
            command: command.into(),
            cwd: None,
            env: Vec::new(),
            timeout: None,
            max_output: DEFAULT_MAX_OUTPUT,
            stdin: Stdin::Null,
        }
    }

    /// Checks the options (`ERR_INVALID_ARG` naming the option).
    pub fn check(&self) -> Result<()> {
        if self.command.is_empty() {
            return Err(Error::invalid_arg(
                "options.command must be a non-empty string",
            ));
        }
        if self.command.contains('\0') {
            return Err(Error::invalid_arg(
                "options.command must not contain NUL characters",
            ));
        }
        if let Some(cwd) = &self.cwd
            && (cwd.is_empty() || cwd.contains('\0'))
        {
            return Err(Error::invalid_arg(format!(
                "options.cwd must be a directory path, got {cwd:?}"
            )));
        }
        check_env(&self.env, "options.env")
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunResult {
    /// The command's exit status; `None` when it was stopped (timeout, abort)
    /// or the shell was killed by a signal.
    pub exit_code: Option<i32>,
    /// What the command printed, stripped of escape sequences, `\n` line ends.
    pub output: String,
    /// The run's timeout stopped it.
    pub timed_out: bool,
    /// An abort (signal, `abort()`, `close()`) stopped it.
    pub cancelled: bool,
    /// Output beyond the limit was left out of `output` (head and tail kept).
    pub truncated: bool,
    /// Why the shell was replaced after (or, for a shell that stopped
    /// showing its prompt, before) this command: the command closed or
    /// moved the shell's terminal descriptors, or its end marker was lost.
    /// The next run starts a new shell in the same directory.
    pub warning: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StopReason {
    TimedOut,
    Cancelled,
}

impl RunResult {
    fn stopped(reason: StopReason, output: String, truncated: bool) -> Self {
        RunResult {
            exit_code: None,
            output,
            timed_out: reason == StopReason::TimedOut,
            cancelled: reason == StopReason::Cancelled,
            truncated,
            warning: None,
        }
    }
}

struct State {
    live: Option<Arc<Live>>,
    busy: bool,
    abort: Option<CancellationToken>,
    closed: bool,
    /// Processes left behind by shells that exited.
    orphans: Vec<ProcRef>,
    /// Input for the command of a run with [`Stdin::Terminal`], while it runs.
    input: Option<mpsc::UnboundedSender<Vec<u8>>>,
    /// The directory of a shell that was replaced as broken: the next shell
    /// starts there.
    carry_cwd: Option<PathBuf>,
}

/// A persistent shell session that runs one command at a time.
///
/// The shell starts on the first [`RunTicket::run`] (and again after it
/// died). Use it through an `Arc`: a run holds one while it is in progress.
///
/// ```no_run
/// # async fn demo() -> ptypilot::core::Result<()> {
/// use std::sync::Arc;
/// use ptypilot::core::shell::{RunOptions, Shell, ShellOptions};
/// use tokio_util::sync::CancellationToken;
/// let shell = Arc::new(Shell::new(ShellOptions::default()));
/// let cancel = CancellationToken::new();
/// shell.begin()?.run(RunOptions::new("cd /tmp"), cancel.clone(), |_| async {}).await?;
/// let r = shell.begin()?.run(RunOptions::new("pwd"), cancel, |_| async {}).await?;
/// assert_eq!(r.output, "/tmp\n");
/// shell.close().await;
/// # Ok(()) }
/// ```
pub struct Shell {
    options: ShellOptions,
    state: Mutex<State>,
    /// True while no run is in progress.
    idle: watch::Sender<bool>,
}

/// The right to run one command: only one exists per shell at a time.
/// Dropping it (or finishing its run) frees the shell for the next run.
pub struct RunTicket {
    shell: Arc<Shell>,
    abort: CancellationToken,
    /// Input for a [`Stdin::Terminal`] run (see [`RunTicket::open_input`]).
    input: Option<mpsc::UnboundedReceiver<Vec<u8>>>,
}

impl RunTicket {
    /// Lets [`Shell::write`] send input to this run's command from now on
    /// (it waits until the command runs); for a run with
    /// [`Stdin::Terminal`], before [`RunTicket::run`] when input may be
    /// written at once. `run` opens it itself otherwise.
    pub fn open_input(&mut self) {
        if self.input.is_none() {
            let (tx, rx) = mpsc::unbounded_channel();
            self.shell.lock().input = Some(tx);
            self.input = Some(rx);
        }
    }
}

impl Drop for RunTicket {
    fn drop(&mut self) {
        let mut state = self.shell.lock();
        state.busy = false;
        state.abort = None;
        state.input = None;
        drop(state);
        self.shell.idle.send_replace(true);
    }
}
impl Shell {
    /// A shell that starts on the first run.
    pub fn new(options: ShellOptions) -> Self {
        Shell {
            options,
            state: Mutex::new(State {
                live: None,
                busy: false,
                abort: None,
                closed: false,
                orphans: Vec::new(),
                input: None,
                carry_cwd: None,
            }),
            idle: watch::channel(true).0,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reserves the shell for one run. Fails with `ERR_ALREADY_RUNNING` while
    /// another run is in progress (callers queue their runs themselves) and
    /// `ERR_NOT_RUNNING` after [`Shell::close`].
    pub fn begin(self: &Arc<Self>) -> Result<RunTicket> {
        let mut state = self.lock();
        if state.closed {
            return Err(Error::not_running(
                "the shell was closed; create a new Shell to run more commands",
            ));
        }
        if state.busy {
            return Err(Error::new(
                ErrorCode::AlreadyRunning,
                "a command is already running in this shell; await its result (or call abort()) before the next run()",
            ));
        }
        let abort = CancellationToken::new();
        state.busy = true;
        state.abort = Some(abort.clone());
        drop(state);
        self.idle.send_replace(false);
        Ok(RunTicket {
            shell: self.clone(),
            abort,
            input: None,
        })
    }

    /// The shell's process id while it runs (it starts on the first run).
    pub fn pid(&self) -> Option<Pid> {
        let state = self.lock();
        let live = state.live.as_ref()?;
        live.session.running().then(|| live.session.pid())
    }

    /// True while a run is in progress.
    pub fn busy(&self) -> bool {
        self.lock().busy
    }

    /// Sends `data` to the terminal for the running command, which was run
    /// with [`Stdin::Terminal`]. Input written before the command started
    /// waits for it; input it has not read when it ends is discarded (it
    /// would otherwise be read by the shell as commands). Fails with
    /// `ERR_NOT_RUNNING` when no such command runs.
    pub fn write(&self, data: &[u8]) -> Result<()> {
        let state = self.lock();
        let sent = state
            .input
            .as_ref()
            .is_some_and(|input| input.send(data.to_vec()).is_ok());
        if sent {
            return Ok(());
        }
        let why = if state.busy {
            "the running command's stdin is /dev/null; run it with stdin: 'terminal' to write to it"
        } else {
            "no command is running; write() sends input to a command run with stdin: 'terminal'"
        };
        Err(Error::not_running(why))
    }

    /// Stops the running command (as a timeout would, but the result says
    /// `cancelled`) and resolves once its run has finished; at once when
    /// nothing runs.
    pub async fn abort(&self) {
        let abort = self.lock().abort.clone();
        if let Some(abort) = abort {
            abort.cancel();
        }
        self.wait_idle().await;
    }

    /// Ends the shell and everything it started, and resolves once they are
    /// gone. A run in progress resolves `cancelled`; later runs fail with
    /// `ERR_NOT_RUNNING`. Closing twice is fine.
    pub async fn close(&self) {
        let (live, abort) = {
            let mut state = self.lock();
            state.closed = true;
            (state.live.take(), state.abort.clone())
        };
        if let Some(abort) = abort {
            abort.cancel();
        }
        if let Some(live) = live {
            end_shell(&live.session).await;
        }
        self.wait_idle().await;
        let orphans = std::mem::take(&mut self.lock().orphans);
        kill_and_wait(orphans).await;
    }

    /// SIGKILL, right here on the calling thread, to the shell, everything in
    /// its terminal session (also commands that ignore SIGHUP or left its
    /// process tree) and what earlier shells left behind; removes the command
    /// files. For teardown — the process exits, a worker ends — when nothing
    /// can be awaited. A run in progress then ends as the shell's exit comes.
    pub fn kill_now(&self) {
        let (live, orphans) = {
            let mut state = self.lock();
            (state.live.clone(), std::mem::take(&mut state.orphans))
        };
        if let Some(live) = live {
            kill_all(&stop::session_members(live.session.pid()));
            live.session.kill_now();
            live.dir.remove();
        }
        kill_all(&orphans);
    }

    async fn wait_idle(&self) {
        let mut rx = self.idle.subscribe();
        let _ = rx.wait_for(|idle| *idle).await;
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        // The live shell (if any) is killed when its `Live` goes.
        kill_all(&std::mem::take(&mut self.lock().orphans));
    }
}
