//! A persistent shell that knows when each command ends.
//!
//! [`Shell`] keeps one interactive shell (bash, zsh, dash or another POSIX
//! `sh`) running in a pseudo-terminal and runs commands in it one at a time,
//! so `cd`, `export` and shell variables carry over from one command to the
//! next, as they would for a person at a terminal. Each run resolves with the
//! command's exit code and exactly the text the command printed.
//!
//! # How a command's boundaries are found
//!
//! Not by guessing prompts: ptypilot makes the shell print shell-integration
//! markers in the style of OSC 133 (`ESC ] 133 ; … BEL`), each carrying a
//! random per-shell nonce so that program output cannot fake them:
//!
//! - `A;<status>;<nonce>` — the prompt (`PS1`), printed whenever the shell is
//!   ready to read a line; `<status>` is `$?`;
//! - `C;<nonce>` — the command starts (printed just before it runs);
//! - `D;<status>;<nonce>` — the command ended with exit status `<status>`.
//!
//! The shell starts without user rc files (bash `--norc --noprofile`, zsh
//! `-f`, `ENV` removed for `sh`/dash), without line editing, with tty echo
//! off (`stty -echo`) and with the marker prompt. For each run the command
//! text goes to a private file (mode 0600, in a 0700 directory) and the shell
//! reads one line ([`run_line`]):
//!
//! ```text
//! \command printf '\033]133;C;%s\007' NONCE; . /tmp/ptypilot-shell-…/cmd-1 </dev/null;
//! { \command printf '\033]133;D;%s;%s\007' "$?" NONCE; } 2>/dev/null; PS1=$__ptypilot_ps1
//! ```
//!
//! (one line; shown on two). The braces send a trace of the `D` printf to
//! `/dev/null` when the command turned on `set -x`.
//!
//! `.` runs the file in the current shell, so multi-line commands, here-docs,
//! quotes and a missing final newline need no escaping, and `cd`/`export`
//! persist. The shell's own messages about the command (command not found,
//! syntax errors) name the file; the [`Tracker`] puts the shell's name in its
//! place, as for a command typed at the prompt. With a per-run `cwd` or `env` the file runs in a subshell
//! instead, so those apply to that command only. Output between `C` and `D`
//! is the command's; everything else (the prompt, the echo of the line, job
//! notices) is dropped. When the shell aborts the line (the command was
//! interrupted, or a syntax error made dash give up) no `D` comes: the next
//! prompt ends the command and its `$?` is the status.
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
//! shell (the next run starts a new one). The shell itself survives the usual
//! cases, so its state is kept.

use std::fs;
use std::future::Future;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use nix::sys::signal::Signal;
use nix::unistd::Pid as NixPid;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::error::{Error, ErrorCode, Result};
use super::process::{self, Pid, ProcRef};
use super::session::{self, Exit, Session, SpawnOptions, shell_quote};
use super::transcript::{HeadTail, Stripper};

/// Time between the steps that stop a command (SIGINT phase, SIGTERM,
/// SIGKILL, killing the shell).
pub const INTERRUPT_GRACE: Duration = Duration::from_millis(1000);
/// How long a new shell may take to show its first prompt.
pub const STARTUP_LIMIT: Duration = Duration::from_secs(10);
/// How long `close()` lets the shell's processes handle SIGTERM before SIGKILL.
pub const CLOSE_GRACE: Duration = Duration::from_millis(1000);
/// Default bound on the output a run's result keeps: 8 MiB (head and tail).
pub const DEFAULT_MAX_OUTPUT: usize = 8 << 20;
/// Longest marker the parser waits for before treating the bytes as output.
const MAX_MARKER: usize = 160;
/// A line longer than this (in bytes of terminal output) is let out in
/// pieces, so one endless line cannot grow memory without bound.
const LONG_LINE: usize = 1 << 20;
/// Discarded output kept to explain a shell that failed to start.
const DISCARDED_KEPT: usize = 2048;
/// The variable that carries the marker prompt into the shell's environment.
const PS1_VAR: &str = "PTYPILOT_PS1";
/// The shell variable that keeps the marker prompt, to restore `PS1` after
/// each command.
const PS1_KEEP: &str = "__ptypilot_ps1";

/// Which dialect of start-up options and settings a shell needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellKind {
    /// GNU bash (also when installed as `sh`).
    Bash,
    /// zsh.
    Zsh,
    /// Any other POSIX shell: dash, ash, ksh, mksh, `sh`.
    Posix,
}

impl ShellKind {
    /// The kind of the shell at `program`, by its name or, for a link such as
    /// `/bin/sh -> dash`, by the name of what it points to.
    pub fn detect(program: &Path) -> ShellKind {
        let name = |p: &Path| {
            p.file_name()
                .and_then(|n| n.to_str())
                .map(|n| n.trim_start_matches('-').to_owned())
        };
        let resolved = fs::canonicalize(program).ok();
        for candidate in [name(program), resolved.as_deref().and_then(name)]
            .into_iter()
            .flatten()
        {
            if candidate.starts_with("bash") {
                return ShellKind::Bash;
            }
            if candidate.starts_with("zsh") {
                return ShellKind::Zsh;
            }
        }
        ShellKind::Posix
    }

    /// The arguments that start it interactive, without rc files and without
    /// line editing (which would echo input on its own).
    pub fn args(self) -> Vec<String> {
        let args: &[&str] = match self {
            ShellKind::Bash => &["--norc", "--noprofile", "--noediting", "-i"],
            ShellKind::Zsh => &["-f", "+Z", "-i"],
            ShellKind::Posix => &["-i"],
        };
        args.iter().map(|&a| a.to_owned()).collect()
    }

    /// The lines typed into a new shell before it is used: echo off, no
    /// history, no editor, and the marker prompt (taken from [`PS1_VAR`], so
    /// the control characters never travel through the terminal's input).
    ///
    /// Each setting is its own line, so one the shell rejects cannot abort
    /// the others; the prompt comes last, and its first appearance tells that
    /// the shell is ready.
    pub fn init_lines(self) -> String {
        let mut lines = vec!["stty -echo 2>/dev/null"];
        match self {
            ShellKind::Bash => {
                lines.push("set +o history; unset HISTFILE PROMPT_COMMAND PS0");
            }
            ShellKind::Zsh => {
                lines.push("unsetopt zle prompt_cr prompt_sp 2>/dev/null");
                // `exit` exits even with background jobs, as in bash and dash.
                lines.push("unsetopt check_jobs check_running_jobs 2>/dev/null");
                lines.push("setopt prompt_subst 2>/dev/null; unset HISTFILE RPS1 RPROMPT");
            }
            ShellKind::Posix => {
                lines.push("command set +o emacs 2>/dev/null; command set +o vi 2>/dev/null");
                lines.push("unset HISTFILE");
            }
        }
        let prompt = format!("{PS1_KEEP}=${PS1_VAR}; unset {PS1_VAR}; PS1=${PS1_KEEP}; PS2=");
        let mut text = String::new();
        for line in lines.iter().copied().chain([prompt.as_str()]) {
            text.push_str(line);
            text.push('\n');
        }
        text
    }
}

/// Shells whose language is not POSIX sh: they cannot run the markers.
const NOT_POSIX: &[&str] = &[
    "fish",
    "csh",
    "tcsh",
    "nu",
    "elvish",
    "xonsh",
    "pwsh",
    "powershell",
    "cmd",
    "rc",
    "es",
];

/// Fails with `ERR_INVALID_ARG` for a shell known not to speak POSIX sh
/// (fish, csh, nushell, PowerShell, ...).
pub fn check_shell_name(shell: &str) -> Result<()> {
    let name = Path::new(shell)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(shell);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    if NOT_POSIX.contains(&name) {
        return Err(Error::invalid_arg(format!(
            "options.shell {shell:?} is not a POSIX shell; use bash, zsh, dash or another sh"
        )));
    }
    Ok(())
}

/// The prompt that prints the `A` marker with `$?` (expanded by the shell
/// each time it shows the prompt).
pub fn prompt(nonce: &str) -> String {
    format!("\x1b]133;A;$?;{nonce}\x07")
}

/// The line that runs the command file `file`: `C` marker, the file (with
/// stdin from `/dev/null`, in a subshell when `cwd` or `env` is given), `D`
/// marker with its status, and the marker prompt restored in case the command
/// changed `PS1`.
///
/// `env` names must be valid shell variable names (see [`check_env`]); `None`
/// values unset the variable.
pub fn run_line(
    file: &Path,
    nonce: &str,
    cwd: Option<&str>,
    env: &[(String, Option<String>)],
) -> String {
    let file = shell_quote(&file.to_string_lossy());
    let body = if cwd.is_none() && env.is_empty() {
        format!(". {file}")
    } else {
        let mut body = String::from("(");
        if let Some(dir) = cwd {
            body.push_str(&format!(" cd {} || exit;", shell_quote(dir)));
        }
        for (key, value) in env {
            match value {
                Some(value) => body.push_str(&format!(" export {key}={};", shell_quote(value))),
                None => body.push_str(&format!(" unset {key};")),
            }
        }
        body.push_str(&format!(" . {file}; )"));
        body
    };
    format!(
        "\\command printf '\\033]133;C;%s\\007' {nonce}; {body} </dev/null; \
         {{ \\command printf '\\033]133;D;%s;%s\\007' \"$?\" {nonce}; }} 2>/dev/null; PS1=${PS1_KEEP}\n"
    )
}

/// Checks per-run variables: names must be shell variable names
/// (`[A-Za-z_][A-Za-z0-9_]*`) and values must not contain NUL.
pub fn check_env(env: &[(String, Option<String>)], what: &str) -> Result<()> {
    for (key, value) in env {
        let mut chars = key.chars();
        let valid = chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(Error::invalid_arg(format!(
                "{what}: {key:?} is not a shell variable name (letters, digits and _, not starting with a digit)"
            )));
        }
        if value.as_deref().is_some_and(|v| v.contains('\0')) {
            return Err(Error::invalid_arg(format!(
                "{what}.{key} must not contain NUL characters"
            )));
        }
    }
    Ok(())
}

/// A fresh random nonce: 32 hex digits.
pub fn new_nonce() -> String {
    let mut bytes = [0u8; 16];
    let from_os = fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if from_os.is_err() {
        // Randomly keyed hashes of the time: unpredictable enough for a
        // marker that only has to be impossible to print by accident.
        use std::hash::{BuildHasher, Hasher};
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        for chunk in bytes.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(now);
            h.write_u32(std::process::id());
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A shell-integration marker with our nonce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// The prompt: the shell waits for a line. `status` is `$?` at that time.
    Prompt {
        /// The exit status of the last command.
        status: i32,
    },
    /// The command starts.
    Start,
    /// The command ended.
    End {
        /// Its exit status.
        status: i32,
    },
}

/// A piece of terminal output: text, or one of our markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Output text (anything that is not one of our markers).
    Text(String),
    /// A marker with the right nonce.
    Marker(Marker),
}

/// Finds our markers in terminal output that arrives in arbitrary pieces.
///
/// A marker split across pieces is held back until it is complete; a
/// sequence that turns out not to be ours (another OSC 133, a wrong nonce, a
/// malformed status, or more than [`MAX_MARKER`] bytes without an end) passes
/// through as text.
///
/// ```
/// use ptypilot::core::shell::{Marker, MarkerParser, Piece};
/// let mut p = MarkerParser::new("abc");
/// let mut out = Vec::new();
/// p.feed("hi\x1b]133;D;3;a", &mut out);
/// p.feed("bc\x07", &mut out);
/// assert_eq!(out, vec![Piece::Text("hi".into()), Piece::Marker(Marker::End { status: 3 })]);
/// ```
#[derive(Debug, Clone)]
pub struct MarkerParser {
    nonce: String,
    /// The start of a possible marker, cut off by the end of the last piece.
    pending: String,
}

/// What the text at an ESC is.
enum Candidate {
    /// One of our markers, `len` bytes long.
    Marker(Marker, usize),
    /// It could still become a marker: wait for more text.
    Incomplete,
    /// Not one of ours.
    No,
}

const MARKER_PREFIX: &str = "\x1b]133;";

impl MarkerParser {
    /// A parser for markers carrying `nonce`.
    pub fn new(nonce: &str) -> Self {
        MarkerParser {
            nonce: nonce.to_owned(),
            pending: String::new(),
        }
    }

    /// Splits `text` into pieces, appended to `out`. Text is never split
    /// needlessly: consecutive text comes out as one piece per call.
    pub fn feed(&mut self, text: &str, out: &mut Vec<Piece>) {
        let joined;
        let data = if self.pending.is_empty() {
            text
        } else {
            self.pending.push_str(text);
            joined = std::mem::take(&mut self.pending);
            joined.as_str()
        };
        let mut text_from = 0;
        let mut at = 0;
        while let Some(rel) = data[at..].find('\x1b') {
            let esc = at + rel;
            match self.candidate(&data[esc..]) {
                Candidate::Marker(marker, len) => {
                    push_text(out, &data[text_from..esc]);
                    out.push(Piece::Marker(marker));
                    at = esc + len;
                    text_from = at;
                }
                Candidate::Incomplete => {
                    push_text(out, &data[text_from..esc]);
                    self.pending = data[esc..].to_owned();
                    return;
                }
                Candidate::No => at = esc + 1,
            }
        }
        push_text(out, &data[text_from..]);
    }

    /// Releases text held back as a possible marker (the stream ended).
    pub fn flush(&mut self, out: &mut Vec<Piece>) {
        let pending = std::mem::take(&mut self.pending);
        push_text(out, &pending);
    }

    fn candidate(&self, s: &str) -> Candidate {
        if s.len() < MARKER_PREFIX.len() {
            return if MARKER_PREFIX.starts_with(s) {
                Candidate::Incomplete
            } else {
                Candidate::No
            };
        }
        if !s.starts_with(MARKER_PREFIX) {
            return Candidate::No;
        }
        let body = &s[MARKER_PREFIX.len()..];
        for (i, c) in body.char_indices() {
            if MARKER_PREFIX.len() + i >= MAX_MARKER {
                return Candidate::No;
            }
            match c {
                '\x07' => {
                    return match self.parse(&body[..i]) {
                        Some(marker) => Candidate::Marker(marker, MARKER_PREFIX.len() + i + 1),
                        None => Candidate::No,
                    };
                }
                c if c.is_ascii_alphanumeric() || c == ';' || c == '-' => {}
                _ => return Candidate::No,
            }
        }
        if s.len() < MAX_MARKER {
            Candidate::Incomplete
        } else {
            Candidate::No
        }
    }

    fn parse(&self, payload: &str) -> Option<Marker> {
        let parts: Vec<&str> = payload.split(';').collect();
        let marker = match parts.as_slice() {
            ["A", status, nonce] => (
                Marker::Prompt {
                    status: status.parse().ok()?,
                },
                *nonce,
            ),
            ["C", nonce] => (Marker::Start, *nonce),
            ["D", status, nonce] => (
                Marker::End {
                    status: status.parse().ok()?,
                },
                *nonce,
            ),
            _ => return None,
        };
        (marker.1 == self.nonce).then_some(marker.0)
    }
}

fn push_text(out: &mut Vec<Piece>, text: &str) {
    if text.is_empty() {
        return;
    }
    if let Some(Piece::Text(last)) = out.last_mut() {
        last.push_str(text);
    } else {
        out.push(Piece::Text(text.to_owned()));
    }
}

/// Where the shell is, as far as the markers tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Started; the marker prompt has not appeared yet.
    Starting,
    /// At the prompt, ready for a line.
    Idle,
    /// The command ended (`D`); its prompt has not appeared yet.
    AwaitPrompt,
    /// A run line was written; the command has not started (`C`) yet.
    Submitted,
    /// The command runs: output is the command's.
    Running,
}

/// How a command ended, from the markers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finish {
    /// Its exit status (`$?`).
    pub status: i32,
    /// The shell aborted the line (no `D`; the status is the prompt's `$?`).
    pub aborted: bool,
}

/// The marker state machine of one shell: which output belongs to the
/// command, and when the command ended.
///
/// Output of the command is stripped of escape sequences with a
/// [`Stripper`] (`\r\n` becomes `\n`, `\r` and backspace are applied to the
/// line), so text comes out line by line; the unfinished last line comes out
/// when the command ends (or once it is longer than 1 MiB).
#[derive(Debug)]
pub struct Tracker {
    parser: MarkerParser,
    phase: Phase,
    stripper: Stripper,
    output: HeadTail,
    finish: Option<Finish>,
    pieces: Vec<Piece>,
    /// The tail of what was dropped (not command output), for diagnostics.
    discarded: String,
    /// Command output fed since the stripper last completed a line.
    line_bytes: usize,
    /// The running command's file as the shell's messages name it, made
    /// ready once per command: `(": <path>: ", "<path>:", "<shell>:")` (see
    /// [`Tracker::name_file`]).
    file: Option<(String, String, String)>,
    /// A stop of the command began ([`Tracker::stopping`]).
    stopping: bool,
    /// Since then: lines that may be the shell's report on the stopped job,
    /// held back until other output follows them (then they are the
    /// command's) or the command ends (then they are dropped).
    held: String,
}

impl Tracker {
    /// A tracker for a shell that was just started with markers carrying `nonce`.
    pub fn new(nonce: &str) -> Self {
        Tracker {
            parser: MarkerParser::new(nonce),
            phase: Phase::Starting,
            stripper: Stripper::default(),
            output: HeadTail::new(DEFAULT_MAX_OUTPUT),
            finish: None,
            pieces: Vec::new(),
            discarded: String::new(),
            line_bytes: 0,
            file: None,
            stopping: false,
            held: String::new(),
        }
    }

    /// A stop of the running command began. From now on, what the shell
    /// prints about the stopped job at the end — the newline bash, dash and
    /// zsh print after a job died of SIGINT, `Terminated`, `Killed`,
    /// `zsh: terminated  <command>` — is left out of the output.
    pub fn stopping(&mut self) {
        self.stopping = true;
    }

    /// `out` without trailing lines that may be the shell's report on a
    /// stopped job (held back; see `held`).
    fn hold_stop_report(&mut self, out: String) -> String {
        if !self.stopping {
            return out;
        }
        let mut emit = String::new();
        for line in out.split_inclusive('\n') {
            match line.strip_suffix('\n') {
                Some(text) if is_stop_report(text) => self.held.push_str(line),
                _ => {
                    emit.push_str(&self.held);
                    self.held.clear();
                    emit.push_str(line);
                }
            }
        }
        emit
    }

    /// The command runs from `path` in a shell called `shell`: its messages
    /// about the command (`bash` `<path>: line 1: x: command not found`, `zsh`
    /// `<path>:1: ...`, `dash` `dash: 1: <path>: x: not found`) read as they
    /// would for a command typed at the prompt (`bash: line 1: ...`,
    /// `zsh:1: ...`, `dash: 1: x: not found`).
    pub fn name_file(&mut self, path: &str, shell: &str) {
        // Every shell's form has a colon right after the path.
        self.file = Some((
            format!(": {path}: "),
            format!("{path}:"),
            format!("{shell}:"),
        ));
    }

    /// `out` with the command file's name replaced (see [`Tracker::name_file`]).
    fn unname_file(&self, out: String) -> String {
        match &self.file {
            Some((inner, path, shell)) if out.contains(path.as_str()) => out
                .replace(inner.as_str(), ": ")
                .replace(path.as_str(), shell),
            _ => out,
        }
    }

    /// The phase now.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Takes terminal output; returns the command output (stripped) it
    /// completed, which is also kept for [`Tracker::take_output`].
    pub fn feed(&mut self, text: &str) -> String {
        let mut pieces = std::mem::take(&mut self.pieces);
        self.parser.feed(text, &mut pieces);
        let mut out = String::new();
        for piece in pieces.drain(..) {
            self.step(piece, &mut out);
        }
        self.pieces = pieces;
        let out = self.unname_file(out);
        let out = self.hold_stop_report(out);
        self.output.push(&out);
        out
    }

    /// The output stream ended (the shell exited): releases what was held
    /// back and returns the command output it completed.
    pub fn end_of_stream(&mut self) -> String {
        let mut pieces = Vec::new();
        self.parser.flush(&mut pieces);
        let mut out = String::new();
        for piece in pieces {
            self.step(piece, &mut out);
        }
        if self.phase == Phase::Running {
            self.stripper.flush_line(&mut out);
        }
        let out = self.unname_file(out);
        let out = self.hold_stop_report(out);
        self.output.push(&out);
        out
    }

    /// A run line was written: output from the `C` marker on is the
    /// command's, kept up to `max_output` bytes.
    pub fn submit(&mut self, max_output: usize) {
        self.phase = Phase::Submitted;
        self.stripper = Stripper::default();
        self.line_bytes = 0;
        self.output = HeadTail::new(max_output);
        self.finish = None;
        self.stopping = false;
        self.held.clear();
    }

    /// How the command ended, once it has (taken once).
    pub fn take_finish(&mut self) -> Option<Finish> {
        self.finish.take()
    }

    /// The command's output and whether part of it was left out.
    pub fn take_output(&mut self) -> (String, bool) {
        self.held.clear();
        std::mem::replace(&mut self.output, HeadTail::new(0)).text()
    }

    /// The last dropped output (prompts, echo, start-up messages), stripped.
    pub fn discarded(&self) -> String {
        super::transcript::strip(&self.discarded)
    }

    fn step(&mut self, piece: Piece, out: &mut String) {
        match (self.phase, piece) {
            (Phase::Running, Piece::Text(text)) => {
                let before = out.len();
                self.stripper.feed(&text, out);
                if out[before..].contains('\n') {
                    self.line_bytes = 0;
                } else {
                    self.line_bytes += text.len();
                    if self.line_bytes > LONG_LINE {
                        self.stripper.flush_line(out);
                        self.line_bytes = 0;
                    }
                }
            }
            (_, Piece::Text(text)) => self.discard(&text),
            (Phase::Running, Piece::Marker(Marker::End { status })) => {
                self.stripper.flush_line(out);
                self.finish = Some(Finish {
                    status,
                    aborted: false,
                });
                self.phase = Phase::AwaitPrompt;
            }
            (Phase::Running | Phase::Submitted, Piece::Marker(Marker::Prompt { status })) => {
                if self.phase == Phase::Running {
                    self.stripper.flush_line(out);
                }
                self.finish = Some(Finish {
                    status,
                    aborted: true,
                });
                self.phase = Phase::Idle;
            }
            (Phase::Submitted, Piece::Marker(Marker::Start)) => self.phase = Phase::Running,
            (_, Piece::Marker(Marker::Prompt { .. })) => self.phase = Phase::Idle,
            // A start or end outside a command: a stray line; nothing to do.
            (_, Piece::Marker(_)) => {}
        }
    }

    fn discard(&mut self, text: &str) {
        self.discarded.push_str(text);
        if self.discarded.len() > 2 * DISCARDED_KEPT {
            let mut cut = self.discarded.len() - DISCARDED_KEPT;
            while !self.discarded.is_char_boundary(cut) {
                cut += 1;
            }
            self.discarded.drain(..cut);
        }
    }
}

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
        }
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
        }
    }
}

/// A line a shell prints about a job it saw die of a stop signal: the empty
/// line after SIGINT, bash's and dash's `Terminated` / `Killed`, zsh's
/// `zsh: terminated  <command>`.
fn is_stop_report(line: &str) -> bool {
    matches!(line, "" | "Terminated" | "Killed")
        || line.starts_with("zsh: terminated ")
        || line.starts_with("zsh: killed ")
}

/// The private directory that holds the command files of one shell; removed
/// when dropped.
#[derive(Debug)]
struct CommandDir {
    path: PathBuf,
}

impl CommandDir {
    fn create(nonce: &str) -> Result<Self> {
        let path = std::env::temp_dir().join(format!("ptypilot-shell-{}", &nonce[..16]));
        // 0700 and `create` (not "create or reuse"): nobody else can read the
        // commands or plant a file in their place.
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|e| Error::io(&format!("create {}", path.display()), &e))?;
        Ok(CommandDir { path })
    }

    fn write(&self, n: u64, command: &str) -> Result<PathBuf> {
        let path = self.path.join(format!("cmd-{n}"));
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| Error::io(&format!("create {}", path.display()), &e))?;
        let mut text = command.to_owned();
        // A here-doc delimiter on the last line needs its newline.
        if !text.ends_with('\n') {
            text.push('\n');
        }
        file.write_all(text.as_bytes())
            .map_err(|e| Error::io(&format!("write {}", path.display()), &e))?;
        Ok(path)
    }
}

impl Drop for CommandDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// A started shell.
struct Live {
    session: Session,
    /// The shell's name as it calls itself (`bash`, `zsh`, `dash`, `sh`).
    name: String,
    nonce: String,
    tracker: Mutex<Tracker>,
    dir: CommandDir,
    runs: std::sync::atomic::AtomicU64,
}

impl Live {
    fn tracker(&self) -> MutexGuard<'_, Tracker> {
        self.tracker.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        // Nobody can use this shell any more: leave nothing behind.
        if self.session.running() {
            let _ = self.session.kill();
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
}

impl Drop for RunTicket {
    fn drop(&mut self) {
        let mut state = self.shell.lock();
        state.busy = false;
        state.abort = None;
        drop(state);
        self.shell.idle.send_replace(true);
    }
}

/// What running in one shell came to.
enum Executed {
    Done(RunResult),
    /// The shell exited before the command was written to it.
    ShellGone,
}

/// Why a run stops early, and since when.
struct Stop {
    cancel: CancellationToken,
    abort: CancellationToken,
    deadline: Option<Instant>,
    reason: Option<StopReason>,
}

impl Stop {
    /// The reason if one applies already.
    fn poll(&mut self) -> Option<StopReason> {
        if self.reason.is_none() {
            if self.cancel.is_cancelled() || self.abort.is_cancelled() {
                self.reason = Some(StopReason::Cancelled);
            } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
                self.reason = Some(StopReason::TimedOut);
            }
        }
        self.reason
    }

    /// Resolves when a reason applies (never, once one was recorded).
    fn wait(&self) -> impl Future<Output = StopReason> + use<> {
        let (cancel, abort, deadline) = (self.cancel.clone(), self.abort.clone(), self.deadline);
        let recorded = self.reason.is_some();
        async move {
            if recorded {
                return std::future::pending().await;
            }
            tokio::select! {
                _ = cancel.cancelled() => StopReason::Cancelled,
                _ = abort.cancelled() => StopReason::Cancelled,
                _ = sleep_until(deadline) => StopReason::TimedOut,
            }
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The steps that stop the command in the foreground.
///
/// For [`INTERRUPT_GRACE`], Ctrl-C: SIGINT to the terminal's foreground
/// process group, and again to each new foreground group (some shells, zsh
/// among them, lose a SIGINT that arrives between two commands, and the next
/// job would never see one). Then SIGTERM to the foreground job's process
/// tree, after another grace SIGKILL, and after another the shell is killed.
/// When the shell itself is in the foreground after the SIGINT phase (a
/// builtin loop that ignores SIGINT), the shell is killed at once.
///
/// The first step waits until the command has started (its `C` marker came):
/// a SIGINT to a shell that has not read the line yet would only redraw the
/// prompt, and the command would run after its run was reported stopped. A
/// shell that does not start the command within [`INTERRUPT_GRACE`] is killed.
struct Interrupt {
    /// The command has started; the steps can begin.
    armed: bool,
    /// When the first SIGINT went out.
    since: Option<Instant>,
    /// The process group that got the last SIGINT.
    interrupted: Option<Pid>,
    /// Steps taken after the SIGINT phase.
    escalations: u8,
    next_at: Option<Instant>,
}

/// How often the foreground group is checked during the SIGINT phase.
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

impl Interrupt {
    fn new(started: bool) -> Self {
        let now = Instant::now();
        Interrupt {
            armed: started,
            since: None,
            interrupted: None,
            escalations: 0,
            next_at: Some(if started { now } else { now + INTERRUPT_GRACE }),
        }
    }

    /// The command started: take the first step now.
    fn arm(&mut self) {
        if !self.armed {
            self.armed = true;
            self.next_at = Some(Instant::now());
        }
    }

    /// Takes the step that is due.
    fn advance(&mut self, session: &Session) {
        let now = Instant::now();
        if !self.armed {
            return self.kill_shell(session);
        }
        let shell = session.pid();
        let foreground = session.foreground_group();
        let since = *self.since.get_or_insert(now);
        let term_at = since + INTERRUPT_GRACE;
        if now < term_at {
            let target = foreground.unwrap_or(shell);
            if self.interrupted != Some(target) {
                let _ = nix::sys::signal::killpg(NixPid::from_raw(target), Signal::SIGINT);
                self.interrupted = Some(target);
            }
            self.next_at = Some((now + INTERRUPT_POLL).min(term_at));
            return;
        }
        match (self.escalations, foreground.filter(|&g| g != shell)) {
            (0 | 1, Some(job)) => {
                let signal = if self.escalations == 0 {
                    Signal::SIGTERM
                } else {
                    Signal::SIGKILL
                };
                for p in process::tree(&[], &[job]) {
                    p.signal(signal);
                    // A stopped job acts on SIGTERM only once continued.
                    p.signal(Signal::SIGCONT);
                }
                self.escalations += 1;
                self.next_at = Some(now + INTERRUPT_GRACE);
            }
            _ => self.kill_shell(session),
        }
    }

    /// The last resort: the run ends when the shell's session does, and the
    /// next run starts a new shell.
    fn kill_shell(&mut self, session: &Session) {
        let _ = session.kill();
        self.next_at = None;
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

    async fn wait_idle(&self) {
        let mut rx = self.idle.subscribe();
        let _ = rx.wait_for(|idle| *idle).await;
    }

    /// The started shell, if it still runs.
    fn current(&self) -> Option<Arc<Live>> {
        let state = self.lock();
        state.live.clone().filter(|l| l.session.running())
    }

    /// Drops `live` as the current shell (it exited or was killed).
    fn forget(&self, live: &Arc<Live>) {
        let mut state = self.lock();
        if state.live.as_ref().is_some_and(|l| Arc::ptr_eq(l, live)) {
            state.live = None;
        }
    }

    /// Forgets a shell that exited, and hangs up on what it left running in
    /// its terminal session (as a closing terminal would); whatever survives
    /// that is killed by [`Shell::close`].
    fn bury(&self, live: &Arc<Live>) {
        self.forget(live);
        let strays = session_members(live.session.pid());
        for p in &strays {
            p.signal(Signal::SIGHUP);
            p.signal(Signal::SIGCONT);
        }
        let mut state = self.lock();
        state.orphans.retain(ProcRef::alive);
        state.orphans.extend(strays);
    }

    /// The PATH the shell will see.
    fn path_env(&self) -> Option<String> {
        if let Some((_, value)) = self.options.env.iter().rev().find(|(k, _)| k == "PATH") {
            return value.clone();
        }
        match &self.options.base_env {
            Some(base) => base
                .iter()
                .find(|(k, _)| k == "PATH")
                .map(|(_, v)| v.clone()),
            None => std::env::var("PATH").ok(),
        }
    }

    /// Starts a shell and waits for its first marker prompt. `Ok(None)` when
    /// the run was stopped meanwhile (the shell is then gone again).
    async fn start(&self, stop: &mut Stop) -> Result<Option<Arc<Live>>> {
        let path_env = self.path_env();
        let here = std::env::current_dir().map_err(|e| Error::spawn("chdir", ".", &e))?;
        let program = match &self.options.shell {
            Some(shell) => shell.clone(),
            None if session::resolve_program("bash", path_env.as_deref(), &here).is_ok() => {
                "bash".to_owned()
            }
            None => "sh".to_owned(),
        };
        let resolved = session::resolve_program(&program, path_env.as_deref(), &here)?;
        let kind = ShellKind::detect(&resolved);
        let nonce = new_nonce();
        let dir = CommandDir::create(&nonce)?;
        // Pagers would wait for keys nobody can send; the caller's env wins.
        let mut env: Vec<(String, Option<String>)> = vec![
            ("PAGER".into(), Some("cat".into())),
            ("GIT_PAGER".into(), Some("cat".into())),
        ];
        env.extend(self.options.env.iter().cloned());
        for name in ["ENV", "BASH_ENV", "PROMPT_COMMAND", "PS0", "PS1", "PS2"] {
            env.push((name.into(), None));
        }
        env.push((PS1_VAR.into(), Some(prompt(&nonce))));
        let session = Session::spawn(SpawnOptions {
            command: program.clone(),
            args: kind.args(),
            cwd: self.options.cwd.clone(),
            env,
            base_env: self.options.base_env.clone(),
            cols: self.options.cols,
            rows: self.options.rows,
            // Nothing reads the transcript or scrollback of this session: the
            // tracker takes all output from the outbox.
            scrollback: 0,
            transcript_limit: 64 << 10,
            ..SpawnOptions::default()
        })?;
        // The terminal keeps these lines until the shell reads them.
        let _ = session.write(kind.init_lines().as_bytes());
        let name = Path::new(&program)
            .file_name()
            .map_or_else(|| program.clone(), |n| n.to_string_lossy().into_owned());
        let live = Arc::new(Live {
            session,
            name,
            tracker: Mutex::new(Tracker::new(&nonce)),
            nonce,
            dir,
            runs: std::sync::atomic::AtomicU64::new(0),
        });
        let closed = {
            let mut state = self.lock();
            if !state.closed {
                state.live = Some(live.clone());
            }
            state.closed
        };
        if closed {
            end_shell(&live.session).await;
            return Ok(None);
        }
        let mut rx = live.session.subscribe();
        let limit = Instant::now() + STARTUP_LIMIT;
        loop {
            rx.borrow_and_update();
            let out = live.session.take_outbox();
            let ready = {
                let mut tracker = live.tracker();
                if !out.data.is_empty() {
                    tracker.feed(&out.data);
                }
                tracker.phase() == Phase::Idle
            };
            if ready {
                return Ok(Some(live));
            }
            if let Some(exit) = out.exit {
                self.bury(&live);
                if stop.poll().is_some() {
                    // `close()` ended it.
                    return Ok(None);
                }
                let said = live.tracker().discarded();
                return Err(Error {
                    code: ErrorCode::Spawn,
                    message: format!(
                        "the shell {program} exited while starting ({}){}",
                        describe_exit(&exit),
                        said_suffix(&said)
                    ),
                    errno: None,
                    path: Some(program),
                });
            }
            tokio::select! {
                _ = rx.changed() => {}
                reason = stop.wait() => {
                    stop.reason = Some(reason);
                    self.forget(&live);
                    end_shell(&live.session).await;
                    return Ok(None);
                }
                _ = tokio::time::sleep_until(limit) => {
                    self.forget(&live);
                    end_shell(&live.session).await;
                    let said = live.tracker().discarded();
                    return Err(Error {
                        code: ErrorCode::Spawn,
                        message: format!(
                            "the shell {program} did not show its prompt within {} s; is it a POSIX shell?{}",
                            STARTUP_LIMIT.as_secs(),
                            said_suffix(&said)
                        ),
                        errno: None,
                        path: Some(program),
                    });
                }
            }
        }
    }

    /// Runs the command in `live`: waits for the prompt, writes the run line,
    /// streams output until the command ends, and stops it when asked.
    async fn execute<F, Fut>(
        &self,
        live: &Arc<Live>,
        opts: &RunOptions,
        stop: &mut Stop,
        on_output: &mut F,
    ) -> Result<Executed>
    where
        F: FnMut(String) -> Fut,
        Fut: Future<Output = ()>,
    {
        let mut rx = live.session.subscribe();
        let mut file: Option<PathBuf> = None;
        let mut interrupt: Option<Interrupt> = None;
        let cleanup = |file: &Option<PathBuf>| {
            if let Some(file) = file {
                let _ = fs::remove_file(file);
            }
        };
        loop {
            rx.borrow_and_update();
            let out = live.session.take_outbox();
            let (text, phase, finish) = {
                let mut tracker = live.tracker();
                let text = if out.data.is_empty() {
                    String::new()
                } else {
                    tracker.feed(&out.data)
                };
                (text, tracker.phase(), tracker.take_finish())
            };
            if !text.is_empty() {
                on_output(text).await;
            }
            if let Some(finish) = finish.filter(|_| file.is_some()) {
                cleanup(&file);
                let (output, truncated) = live.tracker().take_output();
                // A stop that was asked for wins, even if the command ended
                // before it was acted on (`close()` makes the command end
                // with SIGTERM, not with a stop of ours).
                return Ok(Executed::Done(match stop.poll() {
                    Some(reason) => RunResult::stopped(reason, output, truncated),
                    None => RunResult {
                        exit_code: Some(finish.status),
                        output,
                        timed_out: false,
                        cancelled: false,
                        truncated,
                    },
                }));
            }
            if let Some(exit) = out.exit {
                self.bury(live);
                if file.is_none() {
                    return Ok(match stop.poll() {
                        Some(reason) => {
                            Executed::Done(RunResult::stopped(reason, String::new(), false))
                        }
                        None => Executed::ShellGone,
                    });
                }
                cleanup(&file);
                let tail = live.tracker().end_of_stream();
                if !tail.is_empty() {
                    on_output(tail).await;
                }
                let (output, truncated) = live.tracker().take_output();
                // `close()` kills the shell and cancels: say so even if the
                // exit came before the cancellation was seen.
                return Ok(Executed::Done(match stop.poll() {
                    Some(reason) => RunResult::stopped(reason, output, truncated),
                    None => RunResult {
                        exit_code: exit.exit_code,
                        output,
                        timed_out: false,
                        cancelled: false,
                        truncated,
                    },
                }));
            }
            if file.is_none() && phase == Phase::Idle {
                if let Some(reason) = stop.poll() {
                    return Ok(Executed::Done(RunResult::stopped(
                        reason,
                        String::new(),
                        false,
                    )));
                }
                let cwd = match &opts.cwd {
                    Some(cwd) => Some(resolve_cwd(live.session.pid(), cwd)?),
                    None => None,
                };
                let n = live.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let path = live.dir.write(n, &opts.command)?;
                let line = run_line(&path, &live.nonce, cwd.as_deref(), &opts.env);
                {
                    let mut tracker = live.tracker();
                    tracker.submit(opts.max_output);
                    tracker.name_file(&path.display().to_string(), &live.name);
                }
                file = Some(path);
                // If the shell just died, the exit shows up in the outbox.
                let _ = live.session.write(line.as_bytes());
                continue;
            }
            if let Some(interrupt) = &mut interrupt
                && phase != Phase::Submitted
            {
                interrupt.arm();
            }
            let next_step = interrupt.as_ref().and_then(|i| i.next_at);
            tokio::select! {
                _ = rx.changed() => {}
                reason = stop.wait() => {
                    stop.reason = Some(reason);
                    if file.is_none() {
                        return Ok(Executed::Done(RunResult::stopped(reason, String::new(), false)));
                    }
                    interrupt = Some(Interrupt::new(phase != Phase::Submitted));
                    live.tracker().stopping();
                }
                _ = sleep_until(next_step), if next_step.is_some() => {
                    if let Some(interrupt) = &mut interrupt {
                        interrupt.advance(&live.session);
                    }
                }
            }
        }
    }
}

impl RunTicket {
    /// Runs `opts.command`, passing the command's output to `on_output` as it
    /// comes (stripped, as in the result; each call is awaited before more
    /// output is taken). `cancel` stops it like an `AbortSignal`.
    ///
    /// Resolves with the result when the command ended or was stopped; fails
    /// with `ERR_INVALID_ARG` for bad options, `ERR_SPAWN` when the shell
    /// cannot start or `cwd` is not a directory.
    pub async fn run<F, Fut>(
        self,
        opts: RunOptions,
        cancel: CancellationToken,
        mut on_output: F,
    ) -> Result<RunResult>
    where
        F: FnMut(String) -> Fut,
        Fut: Future<Output = ()>,
    {
        opts.check()?;
        let shell = self.shell.clone();
        let mut stop = Stop {
            cancel,
            abort: self.abort.clone(),
            deadline: opts.timeout.map(|t| Instant::now() + t),
            reason: None,
        };
        if let Some(reason) = stop.poll() {
            return Ok(RunResult::stopped(reason, String::new(), false));
        }
        // A shell that died between runs is replaced once; one that dies
        // again before taking the command is an error.
        for _ in 0..2 {
            let live = match shell.current() {
                Some(live) => live,
                None => match shell.start(&mut stop).await? {
                    Some(live) => live,
                    None => {
                        let reason = stop.reason.unwrap_or(StopReason::Cancelled);
                        return Ok(RunResult::stopped(reason, String::new(), false));
                    }
                },
            };
            match shell
                .execute(&live, &opts, &mut stop, &mut on_output)
                .await?
            {
                Executed::Done(result) => return Ok(result),
                Executed::ShellGone => continue,
            }
        }
        Err(Error::new(
            ErrorCode::Spawn,
            "the shell exited before it could run the command",
        ))
    }
}

/// A run's `cwd` as an absolute, checked directory: relative to the shell's
/// current directory where the OS tells it (`/proc/<pid>/cwd`), else left to
/// the shell's `cd`.
fn resolve_cwd(shell: Pid, cwd: &str) -> Result<String> {
    let path = Path::new(cwd);
    let full = if path.is_absolute() {
        path.to_path_buf()
    } else {
        match fs::read_link(format!("/proc/{shell}/cwd")) {
            Ok(base) => base.join(path),
            Err(_) => return Ok(cwd.to_owned()),
        }
    };
    match fs::metadata(&full) {
        Ok(meta) if meta.is_dir() => Ok(full.to_string_lossy().into_owned()),
        Ok(_) => Err(Error::spawn(
            "chdir",
            full.display().to_string(),
            &std::io::Error::from_raw_os_error(libc::ENOTDIR),
        )),
        Err(e) => Err(Error::spawn("chdir", full.display().to_string(), &e)),
    }
}

/// Ends a shell session and everything it started: SIGTERM to its process
/// tree and SIGHUP to the shell (interactive shells ignore SIGTERM, and pass
/// SIGHUP on to their jobs), SIGKILL after [`CLOSE_GRACE`]; processes that
/// left the tree but stayed in the terminal's session are killed too.
async fn end_shell(session: &Session) {
    let leader = session.pid();
    let strays = session_members(leader);
    if session.running() {
        for p in &strays {
            p.signal(Signal::SIGTERM);
        }
        let _ = session.terminate(CLOSE_GRACE);
        let _ = session.signal(Signal::SIGHUP);
        session.wait_exit().await;
    }
    kill_and_wait(strays.into_iter().chain(session_members(leader)).collect()).await;
}

/// SIGKILL to each process still alive, and waits (at most [`CLOSE_GRACE`])
/// until they are gone: the signal takes effect when a process next runs,
/// and "closed" should mean "gone".
async fn kill_and_wait(procs: Vec<ProcRef>) {
    kill_all(&procs);
    let give_up = Instant::now() + CLOSE_GRACE;
    while procs.iter().any(ProcRef::alive) && Instant::now() < give_up {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// SIGKILL to each process still alive.
fn kill_all(procs: &[ProcRef]) {
    for p in procs {
        p.signal(Signal::SIGKILL);
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        // The live shell (if any) is killed when its `Live` goes.
        kill_all(&std::mem::take(&mut self.lock().orphans));
    }
}

/// Processes in the terminal session led by `leader` (other than it).
fn session_members(leader: Pid) -> Vec<ProcRef> {
    process::list()
        .into_iter()
        .filter(|p| p.sid == leader && p.pid != leader && !p.exited())
        .map(|p| p.as_ref())
        .collect()
}

fn describe_exit(exit: &Exit) -> String {
    match (&exit.signal, exit.exit_code) {
        (Some(signal), _) => format!("signal {signal}"),
        (None, Some(code)) => format!("exit code {code}"),
        (None, None) => "unknown status".to_owned(),
    }
}

fn said_suffix(said: &str) -> String {
    let said = said.trim();
    if said.is_empty() {
        String::new()
    } else {
        format!("; it printed: {said}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: &str = "0123456789abcdef0123456789abcdef";

    fn a(status: i32) -> String {
        format!("\x1b]133;A;{status};{N}\x07")
    }
    fn c() -> String {
        format!("\x1b]133;C;{N}\x07")
    }
    fn d(status: i32) -> String {
        format!("\x1b]133;D;{status};{N}\x07")
    }

    /// Feeds `text` split at every position in `cuts` (byte offsets on char
    /// boundaries) and returns the pieces, merged as one call would.
    fn parse_split(text: &str, cuts: &[usize]) -> Vec<Piece> {
        let mut p = MarkerParser::new(N);
        let mut out = Vec::new();
        let mut from = 0;
        for &cut in cuts.iter().chain([&text.len()]) {
            p.feed(&text[from..cut], &mut out);
            from = cut;
        }
        p.flush(&mut out);
        merge(out)
    }

    fn merge(pieces: Vec<Piece>) -> Vec<Piece> {
        let mut out = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Text(t) => push_text(&mut out, &t),
                m => out.push(m),
            }
        }
        out
    }

    #[test]
    fn finds_markers_between_text() {
        let text = format!("{}hello\r\n{}x{}", c(), d(7), a(7));
        assert_eq!(
            parse_split(&text, &[]),
            vec![
                Piece::Marker(Marker::Start),
                Piece::Text("hello\r\n".into()),
                Piece::Marker(Marker::End { status: 7 }),
                Piece::Text("x".into()),
                Piece::Marker(Marker::Prompt { status: 7 }),
            ]
        );
    }

    #[test]
    fn markers_survive_every_split() {
        let text = format!(
            "ab\x1b[1mc{}é€\r\n{}{}\x1b]0;t\x07z{}",
            c(),
            d(0),
            a(0),
            c()
        );
        let whole = parse_split(&text, &[]);
        let boundaries: Vec<usize> = (1..text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for &i in &boundaries {
            assert_eq!(parse_split(&text, &[i]), whole, "split at {i}");
            for &j in boundaries.iter().filter(|&&j| j > i).step_by(7) {
                assert_eq!(parse_split(&text, &[i, j]), whole, "split at {i}, {j}");
            }
        }
        // One character at a time.
        let singles: Vec<usize> = boundaries.clone();
        assert_eq!(parse_split(&text, &singles), whole);
    }

    #[test]
    fn wrong_nonce_and_malformed_markers_are_text() {
        let other = "\x1b]133;D;0;ffffffffffffffffffffffffffffffff\x07";
        let literal = format!("\x1b]133;A;$?;{N}\x07");
        let no_status = format!("\x1b]133;D;x;{N}\x07");
        let foreign = "\x1b]133;A\x07";
        for fake in [other, &literal, &no_status, foreign] {
            let text = format!("a{fake}b");
            assert_eq!(
                parse_split(&text, &[]),
                vec![Piece::Text(text.clone())],
                "{fake:?}"
            );
            assert_eq!(
                parse_split(&text, &[3]),
                vec![Piece::Text(text.clone())],
                "{fake:?}"
            );
        }
    }

    #[test]
    fn an_unterminated_marker_is_released_as_text() {
        let long = format!("\x1b]133;C;{}", "a".repeat(400));
        assert_eq!(
            parse_split(&long, &[10, 50]),
            vec![Piece::Text(long.clone())]
        );
        let cut = format!("x\x1b]133;C;{}", &N[..5]);
        assert_eq!(parse_split(&cut, &[]), vec![Piece::Text(cut.clone())]);
    }

    fn track(chunks: &[&str]) -> (Tracker, String) {
        let mut t = Tracker::new(N);
        let mut streamed = String::new();
        for chunk in chunks {
            streamed.push_str(&t.feed(chunk));
        }
        (t, streamed)
    }

    #[test]
    fn tracker_start_up_waits_for_the_marker_prompt() {
        let (t, out) = track(&["bash-5.2$ stty -echo\r\n", "bash-5.2$ "]);
        assert_eq!(t.phase(), Phase::Starting);
        assert!(out.is_empty());
        let (t, _) = track(&["bash-5.2$ ", &a(0)]);
        assert_eq!(t.phase(), Phase::Idle);
        assert!(t.discarded().contains("bash-5.2$"));
    }

    #[test]
    fn tracker_keeps_exactly_the_command_output() {
        let mut t = Tracker::new(N);
        t.feed(&a(0));
        t.submit(DEFAULT_MAX_OUTPUT);
        let text = format!(
            "echo of the line\r\n{}one\r\n\x1b[31mtwo\x1b[0m\r\nno newline{}{}",
            c(),
            d(3),
            a(0)
        );
        // Every split gives the same streamed text and result.
        for i in (1..text.len()).filter(|&i| text.is_char_boundary(i)) {
            let mut t = Tracker::new(N);
            t.feed(&a(0));
            t.submit(DEFAULT_MAX_OUTPUT);
            let mut streamed = t.feed(&text[..i]);
            streamed.push_str(&t.feed(&text[i..]));
            assert_eq!(streamed, "one\ntwo\nno newline", "split at {i}");
            assert_eq!(
                t.take_finish(),
                Some(Finish {
                    status: 3,
                    aborted: false
                })
            );
            assert_eq!(t.take_output(), ("one\ntwo\nno newline".to_owned(), false));
            assert_eq!(t.phase(), Phase::Idle);
        }
    }

    #[test]
    fn tracker_ends_an_aborted_line_at_the_prompt() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let out = t.feed(&format!("{}partial^C\r\n{}", c(), a(130)));
        assert_eq!(out, "partial^C\n");
        assert_eq!(
            t.take_finish(),
            Some(Finish {
                status: 130,
                aborted: true
            })
        );
        assert_eq!(t.phase(), Phase::Idle);
        // Aborted before the command even started.
        t.submit(DEFAULT_MAX_OUTPUT);
        assert_eq!(t.feed(&a(130)), "");
        assert_eq!(
            t.take_finish(),
            Some(Finish {
                status: 130,
                aborted: true
            })
        );
    }

    #[test]
    fn tracker_ignores_faked_markers_in_output() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let fake = "\x1b]133;D;0;deadbeefdeadbeefdeadbeefdeadbeef\x07";
        let out = t.feed(&format!("{}before{fake}after\r\n", c()));
        assert_eq!(out, "beforeafter\n");
        assert_eq!(t.take_finish(), None);
        assert_eq!(t.phase(), Phase::Running);
    }

    #[test]
    fn tracker_drops_output_between_commands() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        t.feed(&format!("{}x\r\n{}[1]+  Done   sleep 1\r\n", c(), d(0)));
        assert_eq!(t.take_output().0, "x\n");
        assert_eq!(t.phase(), Phase::AwaitPrompt);
        assert_eq!(t.feed(&format!("late\r\n{}", a(0))), "");
        assert_eq!(t.phase(), Phase::Idle);
    }

    #[test]
    fn tracker_names_the_shell_instead_of_the_command_file() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        t.name_file("/tmp/d/cmd-4", "sh");
        let out = t.feed(&format!(
            "{}/tmp/d/cmd-4: line 1: x: command not found\r\n\
             sh: 2: /tmp/d/cmd-4: y: not found\r\n\
             /tmp/d/cmd-4:3: parse error\r\n\
             cat /tmp/d/cmd-40\r\n{}{}",
            c(),
            d(2),
            a(2)
        ));
        assert_eq!(
            out,
            "sh: line 1: x: command not found\nsh: 2: y: not found\nsh:3: parse error\ncat /tmp/d/cmd-40\n"
        );
        assert_eq!(t.take_output().0, out);
    }

    #[test]
    fn tracker_leaves_out_the_shells_report_on_a_stopped_job() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let mut out = t.feed(&format!("{}before\r\n\r\n", c()));
        // Not stopping yet: a blank line is output like any other.
        assert_eq!(out, "before\n\n");
        t.stopping();
        // A report followed by more output was the command's after all.
        out.push_str(&t.feed("\r\nTerminated\r\nstill running\r\n"));
        out.push_str(&t.feed("\r\nTerminated\r\nzsh: terminated  sleep 9\r\nKilled\r\n"));
        out.push_str(&t.feed(&format!("{}{}", d(130), a(130))));
        assert_eq!(out, "before\n\n\nTerminated\nstill running\n");
        assert_eq!(t.take_output().0, out);
        // The next command starts without a stop.
        t.submit(DEFAULT_MAX_OUTPUT);
        let out = t.feed(&format!("{}x\r\n\r\n{}{}", c(), d(0), a(0)));
        assert_eq!(out, "x\n\n");
    }

    #[test]
    fn tracker_flushes_the_last_line_when_the_shell_exits() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        let mut out = t.feed(&format!("{}bye\r\nexit", c()));
        out.push_str(&t.end_of_stream());
        assert_eq!(out, "bye\nexit");
        assert_eq!(t.take_finish(), None);
    }

    #[test]
    fn output_is_bounded_head_and_tail() {
        let mut t = Tracker::new(N);
        t.feed(&a(0));
        t.submit(100);
        let body: String = (0..100).map(|i| format!("{i:03}\r\n")).collect();
        t.feed(&format!("{}{body}{}", c(), d(0)));
        let (output, truncated) = t.take_output();
        assert!(truncated);
        assert!(output.starts_with("000\n001\n"));
        assert!(output.ends_with("098\n099\n"));
        assert!(output.contains("bytes of output omitted"));
    }

    #[test]
    fn run_line_quotes_and_scopes() {
        let file = Path::new("/tmp/d/cmd-0");
        let plain = run_line(file, N, None, &[]);
        assert!(plain.contains(". /tmp/d/cmd-0 </dev/null;"));
        assert!(plain.ends_with("PS1=$__ptypilot_ps1\n"));
        assert_eq!(plain.matches('\n').count(), 1);
        let scoped = run_line(
            file,
            N,
            Some("/tmp/it's here"),
            &[("A".into(), Some("x y'z".into())), ("B".into(), None)],
        );
        assert!(scoped.contains(
            "( cd '/tmp/it'\\''s here' || exit; export A='x y'\\''z'; unset B; . /tmp/d/cmd-0; ) </dev/null"
        ));
    }

    #[test]
    fn env_names_are_checked() {
        assert!(check_env(&[("GOOD_1".into(), Some("v".into()))], "options.env").is_ok());
        for bad in ["1X", "A-B", "", "A B", "A=B"] {
            let err = check_env(&[(bad.into(), Some("v".into()))], "options.env").unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidArg);
            assert!(err.message.contains("options.env"), "{}", err.message);
        }
    }

    #[test]
    fn kinds_from_names_and_links() {
        assert_eq!(
            ShellKind::detect(Path::new("/no/such/bash")),
            ShellKind::Bash
        );
        assert_eq!(ShellKind::detect(Path::new("zsh")), ShellKind::Zsh);
        assert_eq!(
            ShellKind::detect(Path::new("/no/such/dash")),
            ShellKind::Posix
        );
        assert!(ShellKind::Bash.args().contains(&"--norc".to_owned()));
        assert!(ShellKind::Posix.init_lines().ends_with("PS2=\n"));
    }

    #[test]
    fn an_endless_line_comes_out_in_pieces() {
        let (mut t, _) = track(&[&a(0)]);
        t.submit(DEFAULT_MAX_OUTPUT);
        t.feed(&c());
        let chunk = "x".repeat(64 << 10);
        let mut out = String::new();
        for _ in 0..40 {
            out.push_str(&t.feed(&chunk));
        }
        // 2.5 MiB fed: at least two pieces came out before the end.
        assert!(out.len() >= 2 * LONG_LINE, "{}", out.len());
        out.push_str(&t.feed(&d(0)));
        assert_eq!(out.len(), 40 * chunk.len());
    }

    #[test]
    fn non_posix_shells_are_refused() {
        assert!(check_shell_name("/usr/bin/fish").is_err());
        assert!(check_shell_name("tcsh").is_err());
        assert!(check_shell_name("bash").is_ok());
        assert!(check_shell_name("/bin/sh").is_ok());
    }

    #[test]
    fn nonces_differ() {
        let (x, y) = (new_nonce(), new_nonce());
        assert_eq!(x.len(), 32);
        assert_ne!(x, y);
    }
}
