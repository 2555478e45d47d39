//! A program running in a pseudo-terminal, and the session loop that serves it.
//!
//! [`Session::spawn`] opens a pty, starts the program as a session leader with
//! the pty as its controlling terminal, and starts one thread
//! (`ptypilot-session-<pid>`) that owns the master side until the program has
//! exited and its output was drained. The thread:
//!
//! - reads the master in batches, decodes UTF-8 incrementally, appends to the
//!   [`Transcript`](crate::core::transcript::Transcript), feeds the
//!   [`Screen`](crate::core::screen::Screen) (whose answers to terminal queries go
//!   back to the program), and puts the text in the outbox for the listener;
//! - writes queued input when the pty can take it (writes never block the
//!   caller: a write that does not fit is queued);
//! - reaps the child (pidfd on Linux) and then drains: the exit is published
//!   only after every byte the program wrote was read — when the pty reports
//!   end-of-file, which the kernel does only after all buffered output was
//!   read. If a background process keeps the terminal open, the drain ends
//!   after [`DRAIN_IDLE`] without output or at most [`DRAIN_MAX`] after the
//!   exit — and only after one more read found the terminal empty (or, at
//!   [`DRAIN_MAX`], took what it held), since those clocks also run while
//!   the session thread is not scheduled;
//! - runs timeouts and terminations (TERM to the process group and every
//!   descendant, grace, then KILL).
//!
//! The listener ([`EventSink`]) is woken when the outbox turns non-empty and
//! takes everything in it at once ([`Session::take_outbox`]), so output is
//! coalesced into as few deliveries as the listener can keep up with. The exit
//! travels through the same outbox, after the last output. If the listener
//! falls behind by more than [`OUTBOX_HIGH_WATER`] bytes the loop stops
//! reading, which makes the program wait, like a real terminal would.
//!
//! One concept per module:
//!
//! - this module: the [`Session`] handle and its calls (write, resize,
//!   signals, snapshots, reads);
//! - `spawn`: [`Session::spawn`], the environment, program lookup and the
//!   pty or pipes the program starts on;
//! - `state`: what the session thread and its callers share;
//! - `output`: processing a batch of output (screen, transcript, capture,
//!   outbox) and reading it in batches;
//! - `listener`: the listener's side (attach, outbox, the keystroke fast path);
//! - `wait`: async waits (exit, settle, new output);
//! - `input`: whether the program waits for input, and the wait for it;
//! - `event_loop`: the session thread (poll, writer queue, reaping,
//!   drain-before-exit, publishing the exit);
//! - `terminate`: termination of the program's process tree;
//! - `record`: the asciicast v2 recording of a session (`record`);
//! - `sys`: the OS pieces (wake-up descriptor, exit watch, non-blocking I/O).

mod event_loop;
mod input;
mod listener;
mod model;
mod output;
mod record;
mod spawn;
mod state;
pub(crate) mod sys;
mod terminate;
mod wait;

pub use input::{FIRST_LOOK, How, INPUT_QUIET, InputEnd, InputState, MAX_LOOK};
pub use model::{INCIDENTS_KEPT, INCIDENTS_REPORTED, REPLAY_LIMIT, ScreenIncident};
pub use spawn::{TERMINAL_IDENTITY_VARS, check_env, resolve_program, shell_quote};
pub use wait::Settled;

use std::path::PathBuf;
use std::sync::{Arc, MutexGuard};
use std::time::{Duration, Instant};

use crate::core::signal::Signal;

use super::error::{Error, ErrorCode, Result};
use super::proc_tree::{self, Pid, ProcRef};
use super::screen::{Modes, StyledRun, View};
use super::transcript::{ReadOptions, ReadResult, cut_char_len};
use super::tty;
use output::Capture;
use state::{Command, Inner, Shared};
use sys::write_some;

/// Grace between TERM and KILL when terminating.
pub const DEFAULT_GRACE: Duration = Duration::from_millis(2000);
/// After the program exited, the drain ends once no output came for this long
/// (only when something else keeps the terminal open).
pub const DRAIN_IDLE: Duration = Duration::from_millis(100);
/// After the program exited, the drain ends at the latest after this long.
pub const DRAIN_MAX: Duration = Duration::from_millis(2000);
/// Batches read at most when the drain ends at [`DRAIN_MAX`] (what the pty
/// still holds then: the program's last writes, a pty buffer or two).
const DRAIN_LAST_BATCHES: usize = 16;
/// Undelivered output (bytes of text plus raw bytes) beyond which the loop
/// stops reading the pty.
pub const OUTBOX_HIGH_WATER: usize = 4 << 20;
/// Queued, unwritten input (bytes) beyond which `write` fails with `ERR_LIMIT`.
pub const MAX_QUEUED_INPUT: usize = 64 << 20;
/// Largest batch read before the batch is processed. Small, because the pty
/// holds only a few KiB: while a batch is processed nothing is read and the
/// program stalls. (Plain text waits unparsed in the screen model, so large
/// batches buy nothing; `cat` of 16 MiB of headers: 42 MiB/s at 16 KiB,
/// 34 MiB/s at 1 MiB.)
pub const READ_BATCH: usize = 16 << 10;
/// A synchronized-output block (mode 2026) with no output for this long no
/// longer keeps a settle waiting (see [`Session::wait_settle`]).
pub const SYNC_STALL: Duration = Duration::from_secs(1);
/// The session thread takes the terminal back from the listener this long
/// after the listener last took it or read output under it
/// ([`Session::listener_holds`]).
const LISTENER_HOLD: Duration = Duration::from_millis(50);
/// How often liveness of a terminated tree is re-checked.
const TREE_POLL: Duration = Duration::from_millis(20);
/// After KILL, how long to wait for the tree to disappear before giving up.
const KILL_WAIT: Duration = Duration::from_millis(1000);

/// How to start a program.
#[derive(Debug, Clone)]
pub struct SpawnOptions {
    /// The program (looked up on PATH), or with `shell` a command line.
    pub command: String,
    /// Arguments; with `shell`, appended to the command line, quoted.
    pub args: Vec<String>,
    /// Run `command` through this shell with `-lc`.
    pub shell: Option<String>,
    /// Working directory; `None` is the current directory.
    pub cwd: Option<PathBuf>,
    /// Variables set (`Some`) or removed (`None`) over the inherited environment.
    pub env: Vec<(String, Option<String>)>,
    /// The environment to inherit; `None` is this process's environment.
    pub base_env: Option<Vec<(String, String)>>,
    /// Start from the inherited environment (else from an empty one).
    pub inherit_env: bool,
    /// Width.
    pub cols: u16,
    /// Height.
    pub rows: u16,
    /// `TERM`; `None` keeps an explicit `env.TERM` or uses `xterm-256color`.
    pub term: Option<String>,
    /// Lines of scrollback in the screen model.
    pub scrollback: usize,
    /// Terminate after this long (`timed_out` in the exit).
    pub timeout: Option<Duration>,
    /// Transcript ring size in bytes.
    pub transcript_limit: usize,
    /// Keep the whole output, stripped, head and tail up to this many bytes.
    pub capture_limit: Option<usize>,
    /// Put output in the outbox for the listener (else only the exit).
    pub stream_output: bool,
    /// Put the raw output bytes in the outbox too ([`Outbox::raw`]).
    pub stream_raw: bool,
    /// Write the screen model's answers to terminal queries (cursor position,
    /// device attributes, ...) to the program. Off when a front end that
    /// renders the output (xterm.js) answers them itself: the program must
    /// get one answer per query.
    pub answer_queries: bool,
    /// Run with plain pipes instead of a pseudo-terminal (no screen model).
    pub pipes: Option<PipeOptions>,
    /// Record the session to this asciicast v2 file (see `record`).
    pub record: Option<PathBuf>,
    /// After the exit, while something else keeps the terminal open, the
    /// drain ends once no output came for this long ([`DRAIN_IDLE`]). Not a
    /// JS option: tests shorten it to show that what the program wrote before
    /// it exited is read however short it is (or however long the session
    /// thread did not run).
    pub drain_idle: Duration,
    /// Keep a screen model and a transcript of the output (default). Off, the
    /// output only streams to the listener: the screen stays blank, `read`
    /// returns nothing, and the size may be any a `winsize` holds (the
    /// model's limits do not apply). For a front end that renders the output
    /// itself (`ptypilot/node-pty`).
    pub model: bool,
    /// The program gets exactly the variables of `env` (with
    /// `inherit_env: false`): no `SHELL` is added where it has none. (Where
    /// portable-pty starts the program — not Linux with glibc — it still adds
    /// `SHELL`.)
    pub exact_env: bool,
    /// Start the program as this user and group (the caller must be allowed
    /// to: root, usually). `None`: as this process's.
    pub run_as: Option<RunAs>,
    /// Terminal input flags (`c_iflag`) turned on before the program
    /// starts, over the kernel's defaults (`ICRNL | IXON`): node-pty sets
    /// `IUTF8` (for UTF-8), `IXANY` and `IMAXBEL`. 0 changes nothing.
    /// Windows: ignored (a pseudo console has no termios).
    pub input_flags: InputFlags,
    /// The sandbox the program runs in (default: off). See
    /// [`crate::core::sandbox`].
    pub sandbox: crate::core::sandbox::Policy,
    /// The Windows pseudo console's flags (default: none, as node-pty);
    /// ignored elsewhere.
    pub conpty: crate::core::pty::ConPtyFlags,
}

/// Terminal input flags (termios `c_iflag`).
#[cfg(unix)]
pub type InputFlags = libc::tcflag_t;
/// Terminal input flags: Windows has none; the value is ignored there.
#[cfg(windows)]
pub type InputFlags = u32;

/// The user and group a program runs as ([`SpawnOptions::run_as`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunAs {
    /// User id (`setuid`).
    pub uid: u32,
    /// Group id (`setgid`); also the only supplementary group when the caller
    /// is root, so the program keeps none of root's groups.
    pub gid: u32,
}

/// How a program runs without a terminal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PipeOptions {
    /// Give the program a stdin pipe for `write` (else stdin is `/dev/null`).
    pub stdin: bool,
    /// Captured output (`capture_limit`) includes stderr, not only stdout.
    pub capture_stderr: bool,
}

/// Tail of stderr kept for a pipes run.
pub const STDERR_KEPT: usize = 64 << 10;

impl Default for SpawnOptions {
    fn default() -> Self {
        SpawnOptions {
            command: String::new(),
            args: Vec::new(),
            shell: None,
            cwd: None,
            env: Vec::new(),
            base_env: None,
            inherit_env: true,
            cols: 80,
            rows: 24,
            term: None,
            scrollback: 1000,
            timeout: None,
            transcript_limit: super::transcript::DEFAULT_LIMIT,
            capture_limit: None,
            stream_output: true,
            stream_raw: false,
            answer_queries: true,
            pipes: None,
            record: None,
            drain_idle: DRAIN_IDLE,
            model: true,
            exact_env: false,
            run_as: None,
            input_flags: 0,
            sandbox: crate::core::sandbox::Policy::default(),
            conpty: crate::core::pty::ConPtyFlags::default(),
        }
    }
}

/// How a session ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Exit {
    /// The exit code for a normal exit; `None` when killed by a signal.
    pub exit_code: Option<i32>,
    /// The signal's name (`"SIGKILL"`) when killed by a signal.
    pub signal: Option<String>,
    /// Ended by the session's timeout.
    pub timed_out: bool,
    /// Ended by `kill()`, `terminate()` or an abort.
    pub cancelled: bool,
    /// When the exit was published (wall clock).
    pub at: Option<std::time::SystemTime>,
}

/// What a [`Session::write`] did with the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Written {
    /// The terminal read a line without showing it (a password prompt):
    /// the input is kept nowhere (not in the recording; the terminal did
    /// not echo it into the output).
    pub hidden: bool,
}

/// Receives the wake-up when there is output or an exit to take.
pub trait EventSink: Send + Sync {
    /// The outbox turned non-empty; call [`Session::take_outbox`] soon.
    fn wake(&self);
}

/// Which picture of the screen a [`Session::snapshot_if_changed`] caller
/// has: the model's generation and the output position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScreenVersion {
    /// Changes whenever what the screen model shows may have changed (output
    /// fed, a resize, a rebuild); never the same for two states of any two
    /// models of the process.
    pub generation: u64,
    /// The output position (`seq`): output that the model does not see (a
    /// pipe's) moves it without a new generation.
    pub seq: u64,
}

/// What [`Session::read_ready`] read.
#[derive(Debug, Default)]
pub struct Ready {
    /// Output for the listener (may be empty).
    pub data: String,
    /// The same output as bytes, undecoded (when raw output is on).
    pub raw: Vec<u8>,
    /// The listener still holds the terminal: keep watching it.
    pub keep: bool,
    /// Output waits for the listener in the outbox (a flood is being read):
    /// take it with [`Session::take_output`] if no more comes soon.
    pub owed: bool,
}

/// Output and exit waiting for the listener, in order: all of `data` comes
/// before `exit`.
#[derive(Debug, Default)]
pub struct Outbox {
    /// Output text not yet delivered.
    pub data: String,
    /// Output bytes not yet delivered, exactly as read (when raw output is
    /// on). `data` may lag it by the bytes of a character cut off by a read.
    pub raw: Vec<u8>,
    /// The exit, once every byte of output is in `data` (or was delivered).
    pub exit: Option<Exit>,
}

/// A running (or finished) program in a pseudo-terminal.
///
/// Cheap to clone: clones share the session.
#[derive(Clone)]
pub struct Session {
    shared: Arc<Shared>,
    pid: Pid,
}
impl Session {
    /// A handle that does not keep the session alive.
    pub fn downgrade(&self) -> WeakSession {
        WeakSession {
            shared: Arc::downgrade(&self.shared),
            pid: self.pid,
        }
    }

    /// SIGKILL to the program, its process group and every descendant, right
    /// here on the calling thread (for teardown, when there is no time to let
    /// the session thread do it). The exit follows as usual. A sandboxed
    /// program's private temporary folder is removed here too: the process
    /// may be gone before the session thread would have removed it.
    pub fn kill_now(&self) {
        if !self.running() {
            return;
        }
        // Not reaped yet (still running), so the pid is still the program's.
        let roots: Vec<ProcRef> = ProcRef::of(self.pid).into_iter().collect();
        proc_tree::kill_hard(&roots, &[self.pid], &mut Vec::new());
        let _ = self.kill();
        if let Some(sandbox) = &self.shared.sandbox {
            // Removed again (a no-op) when the session thread ends.
            let _ = std::fs::remove_dir_all(&sandbox.temp_dir);
        }
    }

    /// The program's process id.
    pub fn pid(&self) -> Pid {
        self.pid
    }

    /// The sandbox the program runs under, `None` when it runs without one.
    pub fn sandbox(&self) -> Option<&crate::core::sandbox::Applied> {
        self.shared.sandbox.as_ref()
    }

    /// True until the exit was published (the program exited and its output
    /// was drained).
    pub fn running(&self) -> bool {
        self.lock().exit.is_none()
    }

    /// The terminal's foreground process group (`tcgetpgrp` on the pty
    /// master): for a shell, the job it waits for, or the shell itself. `None`
    /// for plain pipes, after the exit, or when the OS cannot tell.
    pub fn foreground_group(&self) -> Option<Pid> {
        let inner = self.lock();
        // The loop clears `pty_fd` under this lock before it closes the
        // master, so the descriptor is open while we hold the lock.
        tty::foreground_group(inner.pty_fd?)
    }

    /// The name of the terminal's foreground program (see
    /// [`proc_tree::program_name`]: `argv[0]` on Linux) — the program a
    /// terminal shows in its title. `None` for plain pipes, after the exit,
    /// or when the OS cannot tell.
    pub fn foreground_name(&self) -> Option<String> {
        proc_tree::program_name(self.foreground_group()?)
    }

    /// True when output feeds a screen model and a transcript
    /// ([`SpawnOptions::model`]).
    pub fn has_model(&self) -> bool {
        self.lock().model_on
    }

    /// The path of the terminal's slave side (`/dev/pts/3`), as it was at the
    /// start, after the exit too (a program that ends at once still had
    /// it); `None` for plain pipes and on Windows.
    pub fn pts_name(&self) -> Option<String> {
        self.lock().pts_name.clone()
    }

    /// How the session ended, once it has.
    pub fn exit(&self) -> Option<Exit> {
        self.lock().exit.clone()
    }

    /// Sends input to the program. Never blocks: what the pty cannot take now
    /// is queued and written by the session thread.
    ///
    /// Input written while the terminal reads a line without showing it (a
    /// password prompt: canonical mode, echo off; see
    /// [`Modes::hides_input`](crate::core::tty::Modes::hides_input)) is
    /// kept nowhere: the recording gets no input event for it, and the
    /// terminal does not echo it into the output. [`Written::hidden`] says
    /// so, for callers that report what they sent.
    pub fn write(&self, data: &[u8]) -> Result<Written> {
        let mut inner = self.lock();
        let Some(fd) = inner.input_fd else {
            if inner.exit.is_none() {
                return Err(Error::invalid_arg(
                    "this program has no input: it runs with plain pipes and stdin from /dev/null",
                ));
            }
            return Err(not_running("write to"));
        };
        if inner.exit.is_some() {
            return Err(not_running("write to"));
        }
        let hidden = inner
            .pty_fd
            .and_then(tty::modes)
            .is_some_and(tty::Modes::hides_input);
        let record = |bytes: &[u8]| {
            if !hidden {
                self.shared.record(|r| r.input(bytes));
            }
        };
        inner.last_activity = Instant::now();
        inner.writes += 1;
        inner.input_seq = inner.seq;
        let mut rest = data;
        if inner.queue.is_empty() {
            let n = write_some(fd, rest);
            rest = &rest[n..];
        }
        if rest.is_empty() {
            record(data);
            return Ok(Written { hidden });
        }
        if inner.queue.len() + rest.len() > MAX_QUEUED_INPUT {
            // The recording holds only what the program was given.
            record(&data[..data.len() - rest.len()]);
            return Err(Error::new(
                ErrorCode::Limit,
                format!(
                    "write queue full: {} bytes are waiting for the program to read them (limit {MAX_QUEUED_INPUT})",
                    inner.queue.len()
                ),
            ));
        }
        let was_empty = inner.queue.is_empty();
        inner.queue.extend(rest);
        record(data);
        drop(inner);
        if was_empty {
            self.shared.waker.wake();
        }
        Ok(Written { hidden })
    }

    /// Discards input the program has not read yet: what is queued here and
    /// what the terminal holds. For a shell ending a command that read the
    /// terminal, so that input it left unread cannot become the next command
    /// line. The terminal's input queue can only be flushed from its slave
    /// side, so the slave is opened by name for the flush.
    pub fn discard_input(&self) {
        let mut inner = self.lock();
        inner.queue.clear();
        let Some(fd) = inner.pty_fd else {
            return;
        };
        // The loop clears `pty_fd` under this lock before it closes the
        // master, so the descriptor is open while we hold the lock.
        #[cfg(unix)]
        if let Some(slave) = tty::slave_path(fd) {
            sys::flush_unread_input(&slave);
        }
        // Windows: a pseudo console's input buffer is the console host's;
        // only what is queued here is discarded.
        #[cfg(windows)]
        let _ = fd;
    }

    /// The terminal's device path (`/dev/pts/N`), for a program that should
    /// open the terminal itself; `None` for plain pipes or after the exit.
    #[cfg(unix)]
    pub fn tty_path(&self) -> Option<std::path::PathBuf> {
        use std::os::unix::ffi::OsStringExt;
        let inner = self.lock();
        // The loop clears `pty_fd` under this lock before it closes the
        // master, so the descriptor is open while we hold the lock.
        let slave = tty::slave_path(inner.pty_fd?)?;
        Some(std::ffi::OsString::from_vec(slave.into_bytes()).into())
    }

    /// The terminal's modes (`tcgetattr` on the master, which on Linux and
    /// macOS reads the terminal's own settings, those its programs see);
    /// `None` for plain pipes, after the exit, or when the OS refuses.
    #[cfg(unix)]
    pub fn terminal_modes(&self) -> Option<libc::termios> {
        // The loop clears `pty_fd` under this lock before it closes the
        // master, so the descriptor is open while we hold the lock.
        self.lock().pty_fd.and_then(tty::termios)
    }

    /// Sets the terminal's modes at once (`tcsetattr(TCSANOW)` on the
    /// master); false when the OS refuses or the session has no terminal.
    #[cfg(unix)]
    pub fn set_terminal_modes(&self, modes: &libc::termios) -> bool {
        // As in `terminal_modes`.
        self.lock()
            .pty_fd
            .is_some_and(|fd| tty::set_termios(fd, modes))
    }

    /// Resizes the terminal (the program gets SIGWINCH) and the screen model.
    pub fn resize(&self, cols: u16, rows: u16) -> Result<()> {
        let mut inner = self.lock();
        if inner.exit.is_some() {
            return Err(not_running("resize"));
        }
        let Some(fd) = inner.pty_fd else {
            return Err(Error::invalid_arg(
                "cannot resize: this program runs with plain pipes, not a terminal",
            ));
        };
        let call = if cfg!(windows) {
            "ResizePseudoConsole"
        } else {
            "ioctl(TIOCSWINSZ)"
        };
        crate::core::pty::set_size(fd, cols, rows).map_err(|e| Error::io(call, &e))?;
        self.shared.record(|r| r.resize(cols, rows));
        let inner = &mut *inner;
        if inner.model_on {
            inner.model.resize(rows, cols, &inner.transcript, inner.seq);
        }
        // The program redraws for the new size (SIGWINCH).
        inner.last_activity = Instant::now();
        Ok(())
    }

    /// Sends `signal` to the program (only the program's own process).
    pub fn signal(&self, signal: Signal) -> Result<()> {
        self.command(Command::Signal(signal))
    }

    /// Kills the program and every descendant now (SIGKILL); the exit reports
    /// `cancelled`.
    pub fn kill(&self) -> Result<()> {
        self.command(Command::Terminate {
            grace: Duration::ZERO,
        })
    }

    /// TERM to the program's process group and every descendant, then KILL
    /// whatever is left after `grace`. The exit reports `cancelled`.
    pub fn terminate(&self, grace: Duration) -> Result<()> {
        self.command(Command::Terminate { grace })
    }

    fn command(&self, command: Command) -> Result<()> {
        let mut inner = self.lock();
        if inner.exit.is_some() {
            return Err(not_running("signal"));
        }
        inner.commands.push(command);
        drop(inner);
        self.shared.waker.wake();
        Ok(())
    }

    /// A picture of the screen now and the output position it reflects.
    pub fn snapshot(&self) -> (View, u64) {
        let mut inner = self.lock();
        let inner = &mut *inner;
        let view = inner.model.view(&inner.transcript, inner.seq);
        (view, inner.seq)
    }

    /// A picture of the screen now and its version, or `None` when the
    /// version is still `known`: the screen and the output position are
    /// those of the picture that had that version.
    pub fn snapshot_if_changed(
        &self,
        known: Option<ScreenVersion>,
    ) -> Option<(View, ScreenVersion)> {
        let mut inner = self.lock();
        let inner = &mut *inner;
        let version = ScreenVersion {
            generation: inner.model.generation(),
            seq: inner.seq,
        };
        if known == Some(version) {
            return None;
        }
        let view = inner.model.view(&inner.transcript, inner.seq);
        Some((view, version))
    }

    /// A picture of the screen with the styled runs of every row, and the
    /// output position both reflect.
    pub fn styled_snapshot(&self) -> (View, Vec<Vec<StyledRun>>, u64) {
        self.styled(false)
    }

    /// As [`Session::styled_snapshot`], with one run per cell (see
    /// [`Screen::styled_cells`](crate::core::screen::Screen::styled_cells)).
    pub fn cell_snapshot(&self) -> (View, Vec<Vec<StyledRun>>, u64) {
        self.styled(true)
    }

    fn styled(&self, cells: bool) -> (View, Vec<Vec<StyledRun>>, u64) {
        let mut inner = self.lock();
        let inner = &mut *inner;
        let (snapshot, styles) = inner.model.styled_view(&inner.transcript, inner.seq, cells);
        (snapshot, styles, inner.seq)
    }

    /// The visible text only (cheaper than a snapshot).
    pub fn screen_text(&self) -> String {
        let mut inner = self.lock();
        let inner = &mut *inner;
        inner.model.text(&inner.transcript, inner.seq)
    }

    /// The input modes the program turned on (cursor keys, paste).
    pub fn modes(&self) -> Modes {
        let mut inner = self.lock();
        let inner = &mut *inner;
        inner.model.modes(&inner.transcript, inner.seq)
    }

    /// Panics of the screen model that the session contained (the first
    /// [`INCIDENTS_KEPT`]); see `model` for what happens then.
    pub fn incidents(&self) -> Vec<ScreenIncident> {
        self.lock().model.incidents().to_vec()
    }

    /// Output processed so far, in bytes of decoded (UTF-8) text: the
    /// transcript's cursor scale.
    pub fn seq(&self) -> u64 {
        self.lock().seq
    }

    /// Reads the transcript (see [`Transcript::read`](crate::core::transcript::Transcript::read)).
    pub fn read(&self, opts: &ReadOptions) -> Result<ReadResult> {
        self.lock().transcript.read(opts)
    }

    /// The captured output (head and tail) and whether some was left out.
    pub fn captured(&self) -> Option<(String, bool)> {
        self.lock().capture.as_ref().map(Capture::text)
    }

    /// Pipes only: the last [`STDERR_KEPT`] bytes of stderr.
    pub fn stderr(&self) -> Option<String> {
        let inner = self.lock();
        let tail: Vec<u8> = inner.stderr.as_ref()?.iter().copied().collect();
        Some(String::from_utf8_lossy(&tail[cut_char_len(&tail)..]).into_owned())
    }

    /// True when the program runs in a pseudo-terminal (not plain pipes).
    pub fn is_pty(&self) -> bool {
        self.lock().stderr.is_none()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.shared.lock()
    }
}

/// A session reference that does not keep it alive (see [`Session::downgrade`]).
#[derive(Clone)]
pub struct WeakSession {
    shared: std::sync::Weak<Shared>,
    pid: Pid,
}

impl WeakSession {
    /// The session, if anything else still holds it.
    pub fn upgrade(&self) -> Option<Session> {
        Some(Session {
            shared: self.shared.upgrade()?,
            pid: self.pid,
        })
    }
}

fn not_running(what: &str) -> Error {
    Error::not_running(format!("cannot {what} the session: the program has exited"))
}
