//! A program running in a pseudo-terminal, and the session loop that serves it.
//!
//! [`Session::spawn`] opens a pty, starts the program as a session leader with
//! the pty as its controlling terminal, and starts one thread
//! (`ptypilot-session-<pid>`) that owns the master side until the program has
//! exited and its output was drained. The thread:
//!
//! - reads the master in batches, decodes UTF-8 incrementally, appends to the
//!   [`Transcript`], feeds the [`Screen`] (whose answers to terminal queries go
//!   back to the program), and puts the text in the outbox for the listener;
//! - writes queued input when the pty can take it (writes never block the
//!   caller: a write that does not fit is queued);
//! - reaps the child (pidfd on Linux) and then drains: the exit is published
//!   only after every byte the program wrote was read — when the pty reports
//!   end-of-file, which the kernel does only after all buffered output was
//!   read. If a background process keeps the terminal open, the drain ends
//!   after [`DRAIN_IDLE`] without output or at most [`DRAIN_MAX`] after the
//!   exit;
//! - runs timeouts and terminations (TERM to the process group and every
//!   descendant, grace, then KILL).
//!
//! The listener ([`EventSink`]) is woken when the outbox turns non-empty and
//! takes everything in it at once ([`Session::take_outbox`]), so output is
//! coalesced into as few deliveries as the listener can keep up with. The exit
//! travels through the same outbox, after the last output. If the listener
//! falls behind by more than [`OUTBOX_HIGH_WATER`] bytes the loop stops
//! reading, which makes the program wait, like a real terminal would.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use nix::sys::wait::{WaitPidFlag, WaitStatus};
use nix::unistd::Pid as NixPid;
use portable_pty::{CommandBuilder, MasterPty, PtySize};
use tokio::sync::watch;

use super::error::{Error, ErrorCode, Result};
use super::process::{self, Pid, ProcRef};
use super::screen::{Modes, Screen, Snapshot};
use super::transcript::{HeadTail, ReadOptions, ReadResult, Stripper, Transcript, cut_char_len};
use super::utf8::Utf8Decoder;

/// Grace between TERM and KILL when terminating.
pub const DEFAULT_GRACE: Duration = Duration::from_millis(2000);
/// After the program exited, the drain ends once no output came for this long
/// (only when something else keeps the terminal open).
pub const DRAIN_IDLE: Duration = Duration::from_millis(100);
/// After the program exited, the drain ends at the latest after this long.
pub const DRAIN_MAX: Duration = Duration::from_millis(2000);
/// Undelivered output (bytes) beyond which the loop stops reading the pty.
pub const OUTBOX_HIGH_WATER: usize = 4 << 20;
/// Queued, unwritten input (bytes) beyond which `write` fails with `ERR_LIMIT`.
pub const MAX_QUEUED_INPUT: usize = 64 << 20;
/// Largest batch read before the batch is processed. Small, because the pty
/// holds only a few KiB: while a batch is processed nothing is read and the
/// program stalls. (Plain text waits unparsed in the screen model, so large
/// batches buy nothing; `cat` of 16 MiB of headers: 42 MiB/s at 16 KiB,
/// 34 MiB/s at 1 MiB.)
const READ_BATCH: usize = 16 << 10;
/// A synchronized-output block (mode 2026) with no output for this long no
/// longer keeps a settle waiting (see [`Session::wait_settle`]).
pub const SYNC_STALL: Duration = Duration::from_secs(1);
/// The session thread takes the terminal back from the listener this long
/// after the listener last took it ([`Session::listener_holds`]).
const LISTENER_HOLD: Duration = Duration::from_millis(50);
/// How often liveness of a terminated tree is re-checked.
const TREE_POLL: Duration = Duration::from_millis(20);
/// After KILL, how long to wait for the tree to disappear before giving up.
const KILL_WAIT: Duration = Duration::from_millis(1000);
/// Variables that describe the parent's terminal, not the one we create.
pub const TERMINAL_IDENTITY_VARS: &[&str] = &[
    "TMUX",
    "TMUX_PANE",
    "STY",
    "WINDOW",
    "WINDOWID",
    "COLUMNS",
    "LINES",
    "TERM_PROGRAM",
    "TERM_PROGRAM_VERSION",
    "TERM_SESSION_ID",
    "COLORTERM",
    "VTE_VERSION",
    "ITERM_SESSION_ID",
    "ITERM_PROFILE",
    "KITTY_WINDOW_ID",
    "KITTY_PID",
    "WEZTERM_PANE",
    "WEZTERM_EXECUTABLE",
    "ALACRITTY_WINDOW_ID",
    "ALACRITTY_SOCKET",
    "KONSOLE_DBUS_SESSION",
    "GNOME_TERMINAL_SCREEN",
];
/// PATH used when the environment has none (as `execvp` does).
const DEFAULT_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

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
    /// Run with plain pipes instead of a pseudo-terminal (no screen model).
    pub pipes: Option<PipeOptions>,
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
            pipes: None,
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

/// Receives the wake-up when there is output or an exit to take.
pub trait EventSink: Send + Sync {
    /// The outbox turned non-empty; call [`Session::take_outbox`] soon.
    fn wake(&self);
}

/// What [`Session::read_ready`] read.
#[derive(Debug, Default)]
pub struct Ready {
    /// Output for the listener (may be empty).
    pub data: String,
    /// The listener still holds the terminal: keep watching it.
    pub keep: bool,
}

/// Output and exit waiting for the listener, in order: all of `data` comes
/// before `exit`.
#[derive(Debug, Default)]
pub struct Outbox {
    /// Output text not yet delivered.
    pub data: String,
    /// The exit, once every byte of output is in `data` (or was delivered).
    pub exit: Option<Exit>,
}

#[derive(Debug)]
enum Command {
    Signal(Signal),
    /// Cancel: TERM, `grace`, KILL.
    Terminate {
        grace: Duration,
    },
}

/// What the session thread and its callers share.
struct Shared {
    inner: Mutex<Inner>,
    /// Held from a read of the output through its processing, by the session
    /// thread or by a listener reading on its own thread
    /// ([`Session::read_ready`]), so output is processed in the order it was
    /// read. Taken before `inner`, never after.
    reader: Mutex<Reader>,
    /// Bumped after each processed batch and at the exit; async waiters watch it.
    changed: watch::Sender<u64>,
    /// While the listener holds the terminal (reads it on its own thread):
    /// the number of that hold (from `holds`); else 0.
    listener_hold: AtomicU64,
    /// Holds so far.
    holds: AtomicU64,
    waker: Waker,
}

/// What reading and processing output needs besides [`Inner`].
struct Reader {
    /// One per output, in the order of the loop's outputs.
    decoders: Vec<Utf8Decoder>,
    batch: Vec<u8>,
    /// Answers to terminal queries found in the output, not yet written.
    replies: Vec<u8>,
    /// When output last arrived: the drain clock after the exit.
    last_read: Instant,
}

struct Inner {
    screen: Screen,
    transcript: Transcript,
    /// Output bytes processed so far.
    seq: u64,
    /// Last output processed, input written or resize: the settle clock. Input
    /// counts so that a settle right after a keystroke waits for the answer
    /// instead of returning at once because the screen was quiet before it.
    last_activity: Instant,
    outbox: Outbox,
    sink: Option<Arc<dyn EventSink>>,
    /// Output goes to the listener (not only the exit).
    sink_output: bool,
    /// The listener was woken and has not taken the outbox yet.
    wake_pending: bool,
    /// The loop stopped reading because the outbox is full.
    paused: bool,
    /// Where input goes (the pty master or the stdin pipe), while open.
    input_fd: Option<RawFd>,
    /// The pty master, for resizing (none for pipes).
    pty_fd: Option<RawFd>,
    /// Input that did not fit into the pty yet.
    queue: VecDeque<u8>,
    commands: Vec<Command>,
    exit: Option<Exit>,
    capture: Option<Capture>,
    /// Pipes only: the tail of stderr.
    stderr: Option<VecDeque<u8>>,
    /// Pipes only: captured output includes stderr.
    capture_stderr: bool,
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
    /// Starts `opts.command` in a new pseudo-terminal.
    ///
    /// Fails with `ERR_SPAWN` (errno and path set) when the program or the
    /// working directory cannot be used, and `ERR_INVALID_ARG` for bad options.
    ///
    /// Output is kept for a listener from the first byte (unless
    /// `stream_output` is off); attach one with [`Session::attach`].
    pub fn spawn(opts: SpawnOptions) -> Result<Session> {
        let prepared = prepare(&opts)?;
        let (io, pid) = match opts.pipes {
            None => spawn_pty(&opts, &prepared)?,
            Some(pipes) => spawn_pipes(&prepared, pipes)?,
        };
        let exit_watch = ExitWatch::new(pid).map_err(|e| Error::io("watch for exit", &e))?;
        let waker = Waker::new().map_err(|e| Error::io("create wake descriptor", &e))?;
        let now = Instant::now();
        let (outputs, input_fd, pty_fd) = io.descriptors();
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner {
                screen: Screen::new(opts.rows, opts.cols, opts.scrollback),
                transcript: Transcript::new(opts.transcript_limit),
                seq: 0,
                last_activity: now,
                outbox: Outbox::default(),
                sink_output: opts.stream_output,
                sink: None,
                wake_pending: false,
                paused: false,
                input_fd,
                pty_fd,
                queue: VecDeque::new(),
                commands: Vec::new(),
                exit: None,
                capture: opts.capture_limit.map(Capture::new),
                stderr: opts.pipes.map(|_| VecDeque::new()),
                capture_stderr: opts.pipes.is_some_and(|p| p.capture_stderr),
            }),
            reader: Mutex::new(Reader {
                decoders: outputs.iter().map(|_| Utf8Decoder::default()).collect(),
                batch: Vec::new(),
                replies: Vec::new(),
                last_read: now,
            }),
            changed: watch::channel(0).0,
            listener_hold: AtomicU64::new(0),
            holds: AtomicU64::new(0),
            waker,
        });
        let session_loop = Loop {
            shared: shared.clone(),
            outputs,
            input_fd,
            io,
            pid,
            root: ProcRef::of(pid),
            exit_watch,
            deadline: opts.timeout.map(|t| now + t),
            status: None,
            exited_at: None,
            termination: None,
            hold_seen: None,
        };
        std::thread::Builder::new()
            .name(format!("ptypilot-session-{pid}"))
            .stack_size(256 << 10)
            .spawn(move || session_loop.run())
            .map_err(|e| Error::io("start the session thread", &e))?;
        Ok(Session { shared, pid })
    }

    /// A handle that does not keep the session alive.
    pub fn downgrade(&self) -> WeakSession {
        WeakSession {
            shared: Arc::downgrade(&self.shared),
            pid: self.pid,
        }
    }

    /// SIGKILL to the program, its process group and every descendant, right
    /// here on the calling thread (for teardown, when there is no time to let
    /// the session thread do it). The exit follows as usual.
    pub fn kill_now(&self) {
        if !self.running() {
            return;
        }
        // Not reaped yet (still running), so the pid is still the program's.
        let roots: Vec<ProcRef> = ProcRef::of(self.pid).into_iter().collect();
        process::kill_hard(&roots, &[self.pid], &mut Vec::new());
        let _ = self.kill();
    }

    /// Attaches the listener. It is woken at once if output (or the exit) is
    /// already waiting, and released after it was woken for the exit.
    pub fn attach(&self, sink: Arc<dyn EventSink>) {
        let mut inner = self.lock();
        let waiting = !inner.outbox.data.is_empty() || inner.outbox.exit.is_some();
        if inner.exit.is_none() {
            inner.sink = Some(sink.clone());
        }
        let wake = waiting && !std::mem::replace(&mut inner.wake_pending, true);
        drop(inner);
        if wake {
            sink.wake();
        }
    }

    /// The program's process id.
    pub fn pid(&self) -> Pid {
        self.pid
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
        let fd = inner.pty_fd?;
        // SAFETY: the loop clears `pty_fd` under this lock before it closes
        // the master, so the descriptor is open while we hold the lock.
        let group = unsafe { libc::tcgetpgrp(fd) };
        (group > 0).then_some(group)
    }

    /// How the session ended, once it has.
    pub fn exit(&self) -> Option<Exit> {
        self.lock().exit.clone()
    }

    /// Sends input to the program. Never blocks: what the pty cannot take now
    /// is queued and written by the session thread.
    pub fn write(&self, data: &[u8]) -> Result<()> {
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
        inner.last_activity = Instant::now();
        let mut rest = data;
        if inner.queue.is_empty() {
            let n = write_some(fd, rest);
            rest = &rest[n..];
        }
        if rest.is_empty() {
            return Ok(());
        }
        if inner.queue.len() + rest.len() > MAX_QUEUED_INPUT {
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
        drop(inner);
        if was_empty {
            self.shared.waker.wake();
        }
        Ok(())
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
        set_winsize(fd, cols, rows).map_err(|e| Error::io("ioctl(TIOCSWINSZ)", &e))?;
        inner.screen.resize(rows, cols);
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
    pub fn snapshot(&self) -> (Snapshot, u64) {
        let mut inner = self.lock();
        let snapshot = inner.screen.snapshot();
        (snapshot, inner.seq)
    }

    /// The visible text only (cheaper than a snapshot).
    pub fn screen_text(&self) -> String {
        self.lock().screen.text()
    }

    /// The input modes the program turned on (cursor keys, paste).
    pub fn modes(&self) -> Modes {
        self.lock().screen.modes()
    }

    /// Output bytes processed so far.
    pub fn seq(&self) -> u64 {
        self.lock().seq
    }

    /// Reads the transcript (see [`Transcript::read`]).
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

    /// Takes all undelivered output and, after it, the exit if it happened.
    ///
    /// Call it on [`EventSink::wake`]. If the loop paused reading because the
    /// outbox was full, this resumes it.
    pub fn take_outbox(&self) -> Outbox {
        let mut inner = self.lock();
        inner.wake_pending = false;
        let out = std::mem::take(&mut inner.outbox);
        let resume = std::mem::take(&mut inner.paused);
        drop(inner);
        if resume {
            self.shared.waker.wake();
        }
        out
    }

    /// A duplicate of the pty master (close-on-exec), for a listener that
    /// wants to be woken by the terminal itself and read with
    /// [`Session::read_ready`]. `None` for plain pipes and after the exit.
    ///
    /// The duplicate keeps the terminal open: close it when the exit is
    /// delivered, or the program's other processes get their hangup late.
    pub fn dup_master(&self) -> Option<OwnedFd> {
        let inner = self.lock();
        // `None` for pipes, and cleared before the exit is published.
        let fd = inner.pty_fd?;
        // SAFETY: the loop clears `pty_fd` under this lock before it closes
        // the master, so the descriptor is open while we hold the lock.
        let dup = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
        // SAFETY: a fresh descriptor that nothing else owns.
        (dup >= 0).then(|| unsafe { OwnedFd::from_raw_fd(dup) })
    }

    /// Reads what the terminal has right now from `master` (from
    /// [`Session::dup_master`]), processes it exactly as the session thread
    /// would, and returns the output waiting for the listener (never the exit:
    /// that always comes through [`EventSink::wake`]).
    ///
    /// For a listener that holds the terminal ([`Session::listener_holds`])
    /// and was woken by it. [`Ready::keep`] says whether it still holds it:
    /// not once a full batch came (a flood is read on the session thread), the
    /// terminal reached its end, the listener is behind, or the session thread
    /// took the terminal back. Reads nothing when the listener does not hold
    /// the terminal.
    pub fn read_ready(&self, master: BorrowedFd<'_>) -> Ready {
        let hold = self.shared.listener_hold.load(Ordering::Relaxed);
        let mut reader = self.shared.lock_reader();
        {
            let inner = self.lock();
            // No `pty_fd` once the exit is known (it is cleared first).
            if hold == 0 || inner.paused || inner.pty_fd.is_none() {
                drop(inner);
                drop(reader);
                self.release(hold);
                return Ready::default();
            }
        }
        // End of file is the session thread's to see (it drains, then
        // publishes the exit); here it only means the listener lets go.
        let end = read_into(master.as_raw_fd(), &mut reader.batch, true);
        let full = reader.batch.len() >= READ_BATCH;
        self.shared.process(&mut reader, 0, Stream::Terminal, false);
        drop(reader);
        let mut inner = self.lock();
        let data = std::mem::take(&mut inner.outbox.data);
        let resume = std::mem::take(&mut inner.paused);
        drop(inner);
        let keep = !full && matches!(end, ReadEnd::Again) && !resume;
        if !keep {
            self.release(hold);
        } else if resume {
            self.shared.waker.wake();
        }
        Ready { data, keep }
    }

    /// The listener takes the terminal for a while (`true`; again after every
    /// write) or lets it go (`false`): while it holds it, the session thread
    /// does not read the terminal and only the listener is woken by its
    /// output, which it reads with [`Session::read_ready`] — one wake-up from
    /// a keystroke to its echo, as when reading on the listener's own thread.
    /// The session thread takes the terminal back `LISTENER_HOLD` after the
    /// last `true` (so a listener that stopped reading cannot stall the
    /// program for long), at the program's exit, and when `read_ready` lets
    /// go.
    pub fn listener_holds(&self, on: bool) {
        if on {
            let hold = self.shared.holds.fetch_add(1, Ordering::Relaxed) + 1;
            self.shared.listener_hold.store(hold, Ordering::Relaxed);
        } else {
            self.release(self.shared.listener_hold.load(Ordering::Relaxed));
        }
    }

    /// Ends hold `hold` (if it is still the current one) and has the session
    /// thread read the terminal again.
    fn release(&self, hold: u64) {
        if hold != 0
            && self
                .shared
                .listener_hold
                .compare_exchange(hold, 0, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.shared.waker.wake();
        }
    }

    /// Puts output taken by [`Session::read_ready`] back in front of the
    /// outbox, for a listener that could not deliver it, and wakes the
    /// listener for it.
    pub fn give_back(&self, data: String) {
        if data.is_empty() {
            return;
        }
        let mut inner = self.lock();
        let rest = std::mem::take(&mut inner.outbox.data);
        inner.outbox.data = data;
        inner.outbox.data.push_str(&rest);
        let sink = inner.sink_to_wake();
        drop(inner);
        if let Some(sink) = sink {
            sink.wake();
        }
    }

    /// A receiver that sees a new value after every processed batch of output
    /// and at the exit.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.shared.changed.subscribe()
    }

    /// Waits for the exit.
    pub async fn wait_exit(&self) -> Exit {
        let mut rx = self.subscribe();
        loop {
            rx.borrow_and_update();
            if let Some(exit) = self.exit() {
                return exit;
            }
            if rx.changed().await.is_err() {
                // The loop is gone; it always publishes the exit before that.
                return self.exit().unwrap_or_default();
            }
        }
    }

    /// Waits until no output came (and no input was written) for `quiet` and
    /// no synchronized-output block is open, or the session ended. Returns
    /// `false` when `timeout` passed first.
    ///
    /// A block that stays open with no output for `SYNC_STALL` counts as
    /// closed, as terminals end such a block after a timeout: a program that
    /// stopped mid-frame (it crashed, or never closes its blocks) still
    /// settles, with what it drew so far.
    pub async fn wait_settle(&self, quiet: Duration, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut rx = self.subscribe();
        loop {
            rx.borrow_and_update();
            let (ended, last, synchronized) = {
                let inner = self.lock();
                (
                    inner.exit.is_some(),
                    inner.last_activity,
                    inner.screen.synchronized(),
                )
            };
            if ended {
                return true;
            }
            let quiet_until = tokio::time::Instant::from_std(last + quiet);
            let stalled_at = tokio::time::Instant::from_std(last + SYNC_STALL);
            let now = tokio::time::Instant::now();
            if now >= quiet_until && (!synchronized || now >= stalled_at) {
                return true;
            }
            if now >= deadline {
                return false;
            }
            let wake_at = if synchronized {
                quiet_until.max(stalled_at).min(deadline)
            } else {
                quiet_until.min(deadline)
            };
            tokio::select! {
                changed = rx.changed() => {
                    if changed.is_err() {
                        return true;
                    }
                }
                _ = tokio::time::sleep_until(wake_at) => {}
            }
        }
    }

    /// Waits until output beyond `seq` was processed, or the session ended,
    /// or `timeout` passed. Returns the new `seq`.
    pub async fn wait_output(&self, seq: u64, timeout: Duration) -> u64 {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut rx = self.subscribe();
        loop {
            rx.borrow_and_update();
            let (now_seq, ended) = {
                let inner = self.lock();
                (inner.seq, inner.exit.is_some())
            };
            if now_seq > seq || ended {
                return now_seq;
            }
            tokio::select! {
                changed = rx.changed() => {
                    if changed.is_err() {
                        return now_seq;
                    }
                }
                _ = tokio::time::sleep_until(deadline) => return now_seq,
            }
        }
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

impl Inner {
    /// The listener, when it is to be woken for what the outbox now holds
    /// (not when a wake-up is already pending); marks the wake-up pending.
    fn sink_to_wake(&mut self) -> Option<Arc<dyn EventSink>> {
        if self.sink.is_some() && !std::mem::replace(&mut self.wake_pending, true) {
            self.sink.clone()
        } else {
            None
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent-enough state (plain
        // buffers); keep serving rather than poisoning every later call.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_reader(&self) -> MutexGuard<'_, Reader> {
        self.reader.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn last_read(&self) -> Instant {
        self.lock_reader().last_read
    }

    /// Processes `reader.batch` (read from output `i`, of kind `stream`): the
    /// screen, the transcript, the capture and the outbox, and answers to
    /// terminal queries go to the program. Wakes the listener when `notify`.
    fn process(&self, reader: &mut Reader, i: usize, stream: Stream, notify: bool) {
        if reader.batch.is_empty() {
            return;
        }
        reader.last_read = Instant::now();
        let mut text = String::with_capacity(reader.batch.len());
        reader.decoders[i].decode(&reader.batch, &mut text);
        let sink = {
            let mut inner = self.lock();
            let inner = &mut *inner;
            match stream {
                Stream::Terminal => inner.screen.process(&reader.batch, &mut reader.replies),
                Stream::Stdout => {}
                Stream::Stderr => {
                    if let Some(tail) = &mut inner.stderr {
                        tail.extend(text.as_bytes());
                        let overflow = tail.len().saturating_sub(STDERR_KEPT);
                        tail.drain(..overflow);
                    }
                }
            }
            inner.transcript.push(&text);
            if let Some(capture) = &mut inner.capture
                && (stream != Stream::Stderr || inner.capture_stderr)
            {
                capture.push(&text);
            }
            inner.seq += reader.batch.len() as u64;
            inner.last_activity = Instant::now();
            let mut sink = None;
            if inner.sink_output && !text.is_empty() {
                if inner.outbox.data.is_empty() {
                    inner.outbox.data = text;
                } else {
                    inner.outbox.data.push_str(&text);
                }
                if inner.outbox.data.len() > OUTBOX_HIGH_WATER {
                    inner.paused = true;
                }
                if notify {
                    sink = inner.sink_to_wake();
                }
            }
            if !reader.replies.is_empty()
                && let Some(fd) = inner.input_fd
            {
                // Answers to terminal queries go to the program at once,
                // unless input is already queued ahead of them.
                let replies = std::mem::take(&mut reader.replies);
                if inner.queue.is_empty() {
                    let n = write_some(fd, &replies);
                    inner.queue.extend(&replies[n..]);
                } else {
                    inner.queue.extend(&replies);
                }
            }
            sink
        };
        reader.batch.clear();
        if reader.batch.capacity() > 4 * READ_BATCH {
            reader.batch = Vec::new();
        }
        if let Some(sink) = sink {
            sink.wake();
        }
        self.changed.send_modify(|g| *g += 1);
    }
}

/// Why [`read_into`] stopped.
enum ReadEnd {
    /// Nothing more to read right now, or the batch is full.
    Again,
    /// End of file, or (pty master) every holder of the terminal closed it.
    Eof,
}

/// Reads the non-blocking `fd` into `batch` until it has nothing more right
/// now or `READ_BATCH` bytes were read. With `small_is_all`, a first read of
/// less than `SMALL_READ` bytes counts as "nothing more": one `read` for a
/// keystroke's answer on the listener's fast path (its watch fires again if
/// more came), while output that comes in quantity is read on until the pty
/// is empty or the batch is full, as always.
fn read_into(fd: RawFd, batch: &mut Vec<u8>, small_is_all: bool) -> ReadEnd {
    const SMALL_READ: usize = 1024;
    let first = batch.is_empty();
    while batch.len() < READ_BATCH {
        let room = READ_BATCH - batch.len();
        batch.reserve(room);
        let spare = batch.spare_capacity_mut();
        // SAFETY: `spare` is valid for writes of at least `room` bytes.
        let n = unsafe { libc::read(fd, spare.as_mut_ptr().cast(), room) };
        if n > 0 {
            // SAFETY: `read` initialised the first `n` (<= room) spare bytes.
            unsafe { batch.set_len(batch.len() + n as usize) };
            if small_is_all && first && batch.len() < SMALL_READ {
                return ReadEnd::Again;
            }
            continue;
        }
        if n == 0 {
            return ReadEnd::Eof;
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EAGAIN) => return ReadEnd::Again,
            // EIO on a pty master: every holder of the terminal closed it,
            // and everything they wrote has been read.
            _ => return ReadEnd::Eof,
        }
    }
    ReadEnd::Again
}

fn not_running(what: &str) -> Error {
    Error::not_running(format!("cannot {what} the session: the program has exited"))
}

/// Everything `spawn` needs, resolved and checked.
struct Prepared {
    program: PathBuf,
    argv: Vec<OsString>,
    env: Vec<(String, String)>,
    cwd: PathBuf,
}

fn prepare(opts: &SpawnOptions) -> Result<Prepared> {
    if opts.command.is_empty() {
        return Err(Error::invalid_arg("command must be a non-empty string"));
    }
    if opts.command.contains('\0') || opts.args.iter().any(|a| a.contains('\0')) {
        return Err(Error::invalid_arg(
            "command and args must not contain NUL characters",
        ));
    }
    let cwd = resolve_cwd(opts.cwd.as_deref())?;
    let env = build_env(opts);
    let path_env = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.as_str());
    let (program_name, args) = match &opts.shell {
        Some(shell) => {
            let mut line = opts.command.clone();
            for arg in &opts.args {
                line.push(' ');
                line.push_str(&shell_quote(arg));
            }
            (shell.clone(), vec!["-lc".to_owned(), line])
        }
        None => (opts.command.clone(), opts.args.clone()),
    };
    let program = resolve_program(&program_name, path_env, &cwd)?;
    // argv[0] is the name the user typed when it was found on PATH, as a shell
    // passes it; otherwise the full path. `posix_spawn` runs `program` itself;
    // portable-pty (where it spawns) looks argv[0] up again with the same
    // PATH, which finds the same file.
    let argv0 = if program_name.contains('/') || path_env.is_none() {
        program.clone().into_os_string()
    } else {
        OsString::from(&program_name)
    };
    let mut argv = vec![argv0];
    argv.extend(args.into_iter().map(OsString::from));
    Ok(Prepared {
        program,
        argv,
        env,
        cwd,
    })
}

/// The working directory, checked: it must exist and be a directory.
fn resolve_cwd(cwd: Option<&Path>) -> Result<PathBuf> {
    let here = std::env::current_dir().map_err(|e| Error::spawn("chdir", ".", &e))?;
    let Some(cwd) = cwd else {
        return Ok(here);
    };
    let full = here.join(cwd);
    match std::fs::metadata(&full) {
        Ok(meta) if meta.is_dir() => Ok(full),
        Ok(_) => Err(Error::spawn(
            "chdir",
            full.display().to_string(),
            &std::io::Error::from_raw_os_error(libc::ENOTDIR),
        )),
        Err(e) => Err(Error::spawn("chdir", full.display().to_string(), &e)),
    }
}

/// The child's environment: the inherited one minus the parent's terminal
/// identity, then the caller's overrides, then `TERM`.
fn build_env(opts: &SpawnOptions) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = Vec::new();
    if opts.inherit_env {
        let base: Vec<(String, String)> = match &opts.base_env {
            Some(base) => base.clone(),
            None => std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        };
        env.extend(
            base.into_iter()
                .filter(|(k, _)| !TERMINAL_IDENTITY_VARS.contains(&k.as_str())),
        );
    }
    let mut explicit_term = false;
    for (key, value) in &opts.env {
        env.retain(|(k, _)| k != key);
        if let Some(value) = value {
            explicit_term |= key == "TERM";
            env.push((key.clone(), value.clone()));
        }
    }
    if opts.term.is_some() || !explicit_term {
        let term = opts
            .term
            .clone()
            .unwrap_or_else(|| "xterm-256color".to_owned());
        env.retain(|(k, _)| k != "TERM");
        env.push(("TERM".to_owned(), term));
    }
    env
}

/// Finds the program the way `execvp` would, reporting why it cannot run.
pub fn resolve_program(program: &str, path_env: Option<&str>, cwd: &Path) -> Result<PathBuf> {
    use nix::unistd::{AccessFlags, access};
    let check = |candidate: &Path| -> std::result::Result<(), std::io::Error> {
        let meta = std::fs::metadata(candidate)?;
        if meta.is_dir() {
            return Err(std::io::Error::from_raw_os_error(libc::EACCES));
        }
        access(candidate, AccessFlags::X_OK)
            .map_err(|e| std::io::Error::from_raw_os_error(e as i32))
    };
    if program.contains('/') {
        let candidate = cwd.join(program);
        return match check(&candidate) {
            Ok(()) => Ok(candidate),
            Err(e) => Err(Error::spawn("spawn", program, &e)),
        };
    }
    let mut denied: Option<(PathBuf, std::io::Error)> = None;
    for dir in path_env.unwrap_or(DEFAULT_PATH).split(':') {
        let dir = if dir.is_empty() {
            Path::new(".")
        } else {
            Path::new(dir)
        };
        let candidate = cwd.join(dir).join(program);
        match check(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {}
            Err(e) => {
                denied.get_or_insert((candidate, e));
            }
        }
    }
    Err(match denied {
        Some((path, e)) => Error::spawn("spawn", path.display().to_string(), &e),
        None => Error::spawn(
            "spawn",
            program,
            &std::io::Error::from_raw_os_error(libc::ENOENT),
        ),
    })
}

/// Quotes `arg` for a POSIX shell command line.
pub fn shell_quote(arg: &str) -> String {
    if !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        return arg.to_owned();
    }
    format!("'{}'", arg.replace('\'', "'\\''"))
}

/// Output kept for a one-shot run: stripped text, the head and the tail.
#[derive(Debug)]
struct Capture {
    stripper: Stripper,
    kept: HeadTail,
    scratch: String,
}

impl Capture {
    fn new(limit: usize) -> Self {
        Capture {
            stripper: Stripper::default(),
            kept: HeadTail::new(limit),
            scratch: String::new(),
        }
    }

    fn push(&mut self, text: &str) {
        let mut out = std::mem::take(&mut self.scratch);
        self.stripper.feed(text, &mut out);
        self.kept.push(&out);
        out.clear();
        self.scratch = out;
    }

    fn finish(&mut self) {
        let mut out = String::new();
        self.stripper.flush_line(&mut out);
        self.kept.push(&out);
    }

    fn text(&self) -> (String, bool) {
        self.kept.text()
    }
}

/// The loop's record of a termination in progress.
struct Termination {
    /// Every process seen in the tree so far.
    targets: Vec<ProcRef>,
    /// When KILL is sent (if anything is still alive).
    kill_at: Instant,
    killed: bool,
    /// After KILL: when to stop waiting for the tree.
    give_up_at: Option<Instant>,
}

/// Which stream a piece of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    /// The pty master: everything the program wrote to the terminal.
    Terminal,
    /// A pipes program's stdout.
    Stdout,
    /// A pipes program's stderr.
    Stderr,
}

/// One descriptor the loop reads output from.
struct Output {
    fd: RawFd,
    stream: Stream,
    eof: bool,
}

/// What the session thread owns: the descriptors and the child handle. Dropping
/// it closes the descriptors.
enum Io {
    /// The pty master carries output in and input out.
    Pty {
        master: Box<dyn MasterPty + Send>,
        /// portable-pty's handle when it spawned the child, kept as long as the
        /// session; `None` after `posix_spawn` (Linux), which leaves only a
        /// pid. Either way the loop reaps the child itself, by pid (to see the
        /// signal that killed it).
        _child: Option<Box<dyn portable_pty::Child + Send + Sync>>,
    },
    /// Plain pipes.
    Pipes {
        stdout: OwnedFd,
        stderr: OwnedFd,
        stdin: Option<OwnedFd>,
        /// Never waited on by std; the loop reaps the child itself.
        _child: std::process::Child,
    },
}

impl Io {
    /// The outputs to read, the input descriptor and the pty master.
    fn descriptors(&self) -> (Vec<Output>, Option<RawFd>, Option<RawFd>) {
        let output = |fd: RawFd, stream| Output {
            fd,
            stream,
            eof: false,
        };
        match self {
            Io::Pty { master, .. } => {
                let fd = master.as_raw_fd().unwrap_or(-1);
                (vec![output(fd, Stream::Terminal)], Some(fd), Some(fd))
            }
            Io::Pipes {
                stdout,
                stderr,
                stdin,
                ..
            } => (
                vec![
                    output(stdout.as_raw_fd(), Stream::Stdout),
                    output(stderr.as_raw_fd(), Stream::Stderr),
                ],
                stdin.as_ref().map(AsRawFd::as_raw_fd),
                None,
            ),
        }
    }
}

/// Opens a pty and starts the program on it.
fn spawn_pty(opts: &SpawnOptions, prepared: &Prepared) -> Result<(Io, Pid)> {
    let pty = portable_pty::native_pty_system();
    let pair = pty
        .openpty(PtySize {
            rows: opts.rows,
            cols: opts.cols,
            pixel_width: 0,
            pixel_height: 0,
        })
        .map_err(|e| Error::new(ErrorCode::Internal, format!("cannot open a pty: {e}")))?;
    let (child, pid) = spawn_on_pty(&pair, prepared)?;
    // The child has its own copy; ours must go so that end-of-file is seen
    // when the program and its descendants close the terminal.
    drop(pair.slave);
    let master = pair.master;
    let fd = master
        .as_raw_fd()
        .ok_or_else(|| Error::new(ErrorCode::Internal, "the pty master has no descriptor"))?;
    set_nonblocking(fd).map_err(|e| Error::io("fcntl(O_NONBLOCK) on pty", &e))?;
    Ok((
        Io::Pty {
            master,
            _child: child,
        },
        pid,
    ))
}

/// Starts the program as a session leader with the pty's slave as its
/// controlling terminal and stdin/stdout/stderr, no other descriptor, default
/// signal dispositions and an empty signal mask.
///
/// On Linux with glibc this is `posix_spawn` (see `pty_spawn`): forking the
/// Node process, as portable-pty's `pre_exec` requires, copies its page tables,
/// makes both processes take copy-on-write faults afterwards and holds the JS
/// thread until the child has run the closure; `posix_spawn` borrows the
/// parent's memory until `execve` and costs a fraction of that. The controlling
/// terminal: the child calls `setsid` and then opens the slave by its path
/// without `O_NOCTTY` as fd 0; on Linux a session leader without a controlling
/// terminal that opens one that way acquires it. Elsewhere, or when the tty
/// has no name or glibc lacks the file actions it needs, it is portable-pty's
/// `spawn_command` (`pre_exec`: setsid, `TIOCSCTTY`, signal reset, closing
/// descriptors).
fn spawn_on_pty(
    pair: &portable_pty::PtyPair,
    prepared: &Prepared,
) -> Result<(Option<Box<dyn portable_pty::Child + Send + Sync>>, Pid)> {
    let path = || prepared.program.display().to_string();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if let Some(ext) = super::pty_spawn::Extensions::get()
        && let Some(tty) = pair.master.tty_name()
    {
        let program = super::pty_spawn::Program {
            program: &prepared.program,
            argv: &prepared.argv,
            env: &prepared.env,
            cwd: &prepared.cwd,
        };
        let pid = super::pty_spawn::spawn_on_tty(ext, &tty, &program)
            .map_err(|e| Error::spawn("spawn", path(), &e))?;
        return Ok((None, pid));
    }
    let mut builder = CommandBuilder::from_argv(prepared.argv.clone());
    builder.env_clear();
    for (k, v) in &prepared.env {
        builder.env(k, v);
    }
    builder.cwd(&prepared.cwd);
    let child = pair.slave.spawn_command(builder).map_err(|e| {
        match e.downcast_ref::<std::io::Error>() {
            Some(io) => Error::spawn("spawn", path(), io),
            None => Error {
                code: ErrorCode::Spawn,
                message: format!("spawn {}: {e}", path()),
                errno: None,
                path: Some(path()),
            },
        }
    })?;
    let pid = child
        .process_id()
        .map(|p| p as Pid)
        .ok_or_else(|| Error::new(ErrorCode::Internal, "the spawned program has no process id"))?;
    Ok((Some(child), pid))
}

/// Starts the program with plain pipes, in a process group of its own (so it
/// can be terminated as a group, like a pty session).
fn spawn_pipes(prepared: &Prepared, pipes: PipeOptions) -> Result<(Io, Pid)> {
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    let mut cmd = std::process::Command::new(&prepared.program);
    cmd.arg0(&prepared.argv[0])
        .args(&prepared.argv[1..])
        .env_clear()
        .envs(prepared.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&prepared.cwd)
        .stdin(if pipes.stdin {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::spawn("spawn", prepared.program.display().to_string(), &e))?;
    let pid = child.id() as Pid;
    let stdout: OwnedFd = child.stdout.take().expect("piped stdout").into();
    let stderr: OwnedFd = child.stderr.take().expect("piped stderr").into();
    let stdin: Option<OwnedFd> = child.stdin.take().map(Into::into);
    for fd in [Some(&stdout), Some(&stderr), stdin.as_ref()]
        .into_iter()
        .flatten()
    {
        set_nonblocking(fd.as_raw_fd()).map_err(|e| Error::io("fcntl(O_NONBLOCK) on pipe", &e))?;
    }
    Ok((
        Io::Pipes {
            stdout,
            stderr,
            stdin,
            _child: child,
        },
        pid,
    ))
}

/// The session thread's state.
struct Loop {
    shared: Arc<Shared>,
    outputs: Vec<Output>,
    input_fd: Option<RawFd>,
    /// Owns the descriptors; dropped (closed) when the loop ends.
    io: Io,
    pid: Pid,
    /// The program's identity (pid and start time), taken at spawn.
    root: Option<ProcRef>,
    exit_watch: ExitWatch,
    deadline: Option<Instant>,
    status: Option<Exit>,
    exited_at: Option<Instant>,
    termination: Option<Termination>,
    /// The listener's hold on the terminal last seen, and when: it is taken
    /// back if still the same `LISTENER_HOLD` later.
    hold_seen: Option<(u64, Instant)>,
}

impl Loop {
    /// Runs until the program exited and its output was drained (and, after a
    /// termination, its process tree is gone), then publishes the exit.
    fn run(mut self) {
        let mut exit_flags = Exit::default();
        loop {
            let now = Instant::now();
            if let Some(deadline) = self.deadline
                && now >= deadline
            {
                self.deadline = None;
                exit_flags.timed_out = true;
                self.start_termination(DEFAULT_GRACE);
            }
            let commands = std::mem::take(&mut self.shared.lock().commands);
            for command in commands {
                match command {
                    Command::Signal(sig) => {
                        if self.status.is_none() {
                            let _ = nix::sys::signal::kill(NixPid::from_raw(self.pid), sig);
                        }
                    }
                    Command::Terminate { grace } => {
                        exit_flags.cancelled = true;
                        self.start_termination(grace);
                    }
                }
            }
            self.advance_termination(now);
            if self.finished(now) {
                break;
            }
            self.poll_once(now);
        }
        self.publish_exit(exit_flags);
    }

    fn finished(&self, now: Instant) -> bool {
        let Some(exited_at) = self.exited_at else {
            return false;
        };
        if let Some(t) = &self.termination
            && t.targets.iter().any(ProcRef::alive)
            && t.give_up_at.is_none_or(|g| now < g)
        {
            return false;
        }
        if self.eof() {
            return true;
        }
        if self.shared.lock().paused {
            // The listener is behind; the drain clock stops until it catches up.
            return false;
        }
        let idle_since = self.shared.last_read().max(exited_at);
        now >= idle_since + DRAIN_IDLE || now >= exited_at + DRAIN_MAX
    }

    /// True once every output reached end-of-file.
    fn eof(&self) -> bool {
        self.outputs.iter().all(|o| o.eof)
    }

    fn poll_once(&mut self, now: Instant) {
        let (paused, want_write) = {
            let inner = self.shared.lock();
            (
                inner.paused,
                !inner.queue.is_empty() && inner.input_fd.is_some(),
            )
        };
        let mut fds = Vec::with_capacity(4);
        fds.push(libc::pollfd {
            fd: self.shared.waker.fd(),
            events: libc::POLLIN,
            revents: 0,
        });
        // (index in `fds`, index in `outputs`)
        let mut read_slots = Vec::with_capacity(2);
        let mut write_slot = None;
        let held = self.listener_holds(now);
        for (i, output) in self.outputs.iter().enumerate() {
            // While the listener holds the terminal, only it is woken by output.
            let read = !(output.eof || paused || held && output.stream == Stream::Terminal);
            let write = want_write && Some(output.fd) == self.input_fd;
            if read || write {
                let events =
                    if read { libc::POLLIN } else { 0 } | if write { libc::POLLOUT } else { 0 };
                fds.push(libc::pollfd {
                    fd: output.fd,
                    events,
                    revents: 0,
                });
                if read {
                    read_slots.push((fds.len() - 1, i));
                }
                if write {
                    write_slot = Some(fds.len() - 1);
                }
            }
        }
        if want_write && write_slot.is_none() {
            // A pipes program's stdin is its own descriptor.
            let fd = self.input_fd.unwrap_or(-1);
            fds.push(libc::pollfd {
                fd,
                events: libc::POLLOUT,
                revents: 0,
            });
            write_slot = Some(fds.len() - 1);
        }
        let exit_idx = match (&self.exit_watch, self.status.is_none()) {
            (ExitWatch::PidFd(fd), true) => {
                fds.push(libc::pollfd {
                    fd: fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                });
                Some(fds.len() - 1)
            }
            _ => None,
        };
        let timeout = self.next_timeout(now);
        // Rounded up: a timeout of less than a millisecond must not spin.
        let timeout_ms = timeout.map_or(-1, |t| {
            t.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32
        });
        // SAFETY: `fds` is a valid array of initialised pollfd structs.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
        if n < 0 {
            return; // EINTR: go round again.
        }
        if fds[0].revents != 0 {
            self.shared.waker.drain();
        }
        for (slot, i) in read_slots {
            if fds[slot].revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) == 0 {
                continue;
            }
            if self.outputs[i].stream == Stream::Terminal
                && self.shared.listener_hold.load(Ordering::Relaxed) != 0
            {
                // Woken along with the listener, which took the terminal
                // while this thread was asleep: it reads.
                continue;
            }
            self.read_batch(i);
        }
        if let Some(slot) = write_slot {
            let revents = fds[slot].revents;
            if revents & libc::POLLOUT != 0 {
                self.flush_queue();
            } else if revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0 {
                // Nobody reads the input any more: drop what is queued.
                self.shared.lock().queue.clear();
            }
        }
        let exited = match exit_idx {
            Some(i) => fds[i].revents != 0,
            None => matches!(self.exit_watch, ExitWatch::Thread(_)),
        };
        if exited && self.status.is_none() {
            self.reap();
        }
    }

    /// Whether the listener holds the terminal; takes it back when the hold
    /// is `LISTENER_HOLD` old or the program exited (the drain is this
    /// thread's).
    fn listener_holds(&mut self, now: Instant) -> bool {
        let hold = self.shared.listener_hold.load(Ordering::Relaxed);
        if hold == 0 {
            self.hold_seen = None;
            return false;
        }
        let expired = match self.hold_seen {
            Some((seen, since)) if seen == hold => now >= since + LISTENER_HOLD,
            _ => {
                self.hold_seen = Some((hold, now));
                false
            }
        };
        if expired || self.status.is_some() {
            // A failed exchange means a new hold began; it is seen next time.
            let _ = self.shared.listener_hold.compare_exchange(
                hold,
                0,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
            self.hold_seen = None;
            return false;
        }
        true
    }

    fn next_timeout(&self, now: Instant) -> Option<Duration> {
        let mut next: Option<Instant> = self.deadline;
        let mut consider = |t: Instant| next = Some(next.map_or(t, |n| n.min(t)));
        if let Some((_, since)) = self.hold_seen {
            consider(since + LISTENER_HOLD);
        }
        if let Some(exited_at) = self.exited_at
            && !self.eof()
        {
            consider(self.shared.last_read().max(exited_at) + DRAIN_IDLE);
            consider(exited_at + DRAIN_MAX);
        }
        if let Some(t) = &self.termination {
            if !t.killed {
                consider(t.kill_at);
            }
            consider(now + TREE_POLL);
        }
        if let ExitWatch::Thread(_) = self.exit_watch
            && self.status.is_none()
        {
            consider(now + TREE_POLL);
        }
        next.map(|t| t.saturating_duration_since(now))
    }

    /// Reads output `i` until it has nothing more right now (or a batch is
    /// full), then processes the batch.
    fn read_batch(&mut self, i: usize) {
        let output = &mut self.outputs[i];
        let mut reader = self.shared.lock_reader();
        match read_into(output.fd, &mut reader.batch, false) {
            ReadEnd::Again => {}
            ReadEnd::Eof => output.eof = true,
        }
        self.shared.process(&mut reader, i, output.stream, true);
    }

    fn flush_queue(&mut self) {
        let Some(fd) = self.input_fd else {
            return;
        };
        let mut inner = self.shared.lock();
        while !inner.queue.is_empty() {
            let (front, _) = inner.queue.as_slices();
            let n = write_some(fd, front);
            if n == 0 {
                break;
            }
            inner.queue.drain(..n);
        }
    }

    /// Collects the exit status of the child (it has exited).
    fn reap(&mut self) {
        let status = match &self.exit_watch {
            ExitWatch::PidFd(_) => {
                match nix::sys::wait::waitpid(
                    NixPid::from_raw(self.pid),
                    Some(WaitPidFlag::WNOHANG),
                ) {
                    Ok(WaitStatus::StillAlive) => return,
                    Ok(status) => Some(status),
                    Err(_) => None,
                }
            }
            ExitWatch::Thread(slot) => {
                match slot.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    Some(status) => Some(status),
                    None => return,
                }
            }
        };
        let exit = match status {
            Some(WaitStatus::Exited(_, code)) => Exit {
                exit_code: Some(code),
                ..Exit::default()
            },
            Some(WaitStatus::Signaled(_, sig, _)) => Exit {
                signal: Some(sig.as_str().to_owned()),
                ..Exit::default()
            },
            // Reaped by someone else, or a status we do not expect: the
            // process is gone without a known code.
            _ => Exit::default(),
        };
        self.status = Some(exit);
        self.exited_at = Some(Instant::now());
    }

    fn start_termination(&mut self, grace: Duration) {
        let now = Instant::now();
        let targets = self.collect_targets(&[]);
        match &mut self.termination {
            Some(t) => {
                // A second request can only shorten the grace.
                t.kill_at = t.kill_at.min(now + grace);
                merge(&mut t.targets, targets);
            }
            None => {
                // With no grace the KILL below comes at once; a TERM first
                // would only race it.
                if !grace.is_zero() {
                    self.signal_all(&targets, Signal::SIGTERM);
                }
                self.termination = Some(Termination {
                    targets,
                    kill_at: now + grace,
                    killed: false,
                    give_up_at: None,
                });
            }
        }
        self.advance_termination(now);
    }

    /// The program's process group and every descendant of the program and of
    /// the processes already known (identities checked: a reused pid is not
    /// taken for one of ours).
    fn collect_targets(&self, known: &[ProcRef]) -> Vec<ProcRef> {
        let mut roots: Vec<ProcRef> = known.to_vec();
        if self.status.is_none() {
            roots.extend(self.root);
        }
        // The program is a session leader, so its pid is its process group.
        process::tree_of(&roots, &[self.pid])
    }

    fn advance_termination(&mut self, now: Instant) {
        let Some(t) = &self.termination else {
            return;
        };
        if t.killed {
            return;
        }
        let program_done = self.status.is_some();
        let all_gone = program_done && !t.targets.iter().any(ProcRef::alive);
        if all_gone || now < t.kill_at {
            return;
        }
        let roots: Vec<ProcRef> = if program_done {
            Vec::new()
        } else {
            self.root.into_iter().collect()
        };
        let t = self.termination.as_mut().expect("checked above");
        // Stop everything first, then kill: nothing can fork its way out,
        // and the program dies of the KILL rather than of its child's death.
        process::kill_hard(&roots, &[self.pid], &mut t.targets);
        if !program_done {
            let _ = nix::sys::signal::kill(NixPid::from_raw(self.pid), Signal::SIGKILL);
        }
        t.killed = true;
        t.give_up_at = Some(now + KILL_WAIT);
    }

    /// Sends `signal` to the program's process group in one go, then to every
    /// other target, deepest first.
    ///
    /// The group goes first and at once (`killpg`) so the program gets the
    /// signal together with its children in the group; signalling a child
    /// first would let the program see the child die and exit on its own
    /// (e.g. with 143) before its signal lands.
    fn signal_all(&self, targets: &[ProcRef], signal: Signal) {
        if self.status.is_none() {
            let roots: Vec<ProcRef> = self.root.into_iter().collect();
            process::signal_group(self.pid, &roots, signal);
            let _ = nix::sys::signal::kill(NixPid::from_raw(self.pid), signal);
        }
        for target in targets {
            target.signal(signal);
        }
    }

    fn publish_exit(mut self, flags: Exit) {
        let mut exit = self.status.take().unwrap_or_default();
        exit.timed_out = flags.timed_out;
        exit.cancelled = flags.cancelled && !flags.timed_out;
        exit.at = Some(std::time::SystemTime::now());
        let sink = {
            let mut reader = self.shared.lock_reader();
            let mut inner = self.shared.lock();
            let inner = &mut *inner;
            for (output, decoder) in self.outputs.iter().zip(&mut reader.decoders) {
                // A character cut off by the end of the stream.
                let mut tail = String::new();
                decoder.finish(&mut tail);
                if tail.is_empty() {
                    continue;
                }
                inner.transcript.push(&tail);
                if inner.sink_output {
                    inner.outbox.data.push_str(&tail);
                }
                if let Some(capture) = &mut inner.capture
                    && (output.stream != Stream::Stderr || inner.capture_stderr)
                {
                    capture.push(&tail);
                }
            }
            if let Some(capture) = &mut inner.capture {
                capture.finish();
            }
            inner.input_fd = None;
            inner.pty_fd = None;
            inner.queue = VecDeque::new();
            inner.commands.clear();
            // Close the descriptors before the exit is visible, so a caller
            // that sees it never sees them still open (nobody else can reach
            // them now: the input and pty descriptors are cleared above).
            drop(self.io);
            drop(self.exit_watch);
            self.shared.waker.close();
            inner.exit = Some(exit.clone());
            inner.outbox.exit = Some(exit);
            inner.paused = false;
            let wake = inner.sink.is_some() && !std::mem::replace(&mut inner.wake_pending, true);
            // The listener gets this last wake-up (unless one is pending) and
            // is then released.
            inner.sink.take().filter(|_| wake)
        };
        if let Some(sink) = sink {
            sink.wake();
        }
        self.shared.changed.send_modify(|g| *g += 1);
    }
}

fn merge(into: &mut Vec<ProcRef>, more: Vec<ProcRef>) {
    for p in more {
        if !into.contains(&p) {
            into.push(p);
        }
    }
}

/// Writes as much of `data` as the non-blocking descriptor takes now.
fn write_some(fd: RawFd, data: &[u8]) -> usize {
    let mut done = 0;
    while done < data.len() {
        // SAFETY: the slice is valid for reads of its length.
        let n = unsafe { libc::write(fd, data[done..].as_ptr().cast(), data.len() - done) };
        if n > 0 {
            done += n as usize;
            continue;
        }
        let err = std::io::Error::last_os_error();
        if n < 0 && err.raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        break;
    }
    done
}

fn set_nonblocking(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: plain fcntl calls on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

fn set_winsize(fd: RawFd, cols: u16, rows: u16) -> std::io::Result<()> {
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCSWINSZ reads a winsize struct we own.
    if unsafe { libc::ioctl(fd, libc::TIOCSWINSZ as _, &size as *const libc::winsize) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// How the loop learns that the child exited.
enum ExitWatch {
    /// Linux: a pidfd turns readable when the process exits.
    PidFd(OwnedFd),
    /// Elsewhere: a thread blocks in `waitpid` and leaves the status here.
    Thread(Arc<Mutex<Option<WaitStatus>>>),
}

impl ExitWatch {
    fn new(pid: Pid) -> std::io::Result<ExitWatch> {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: pidfd_open takes a pid and flags and returns a new fd.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
            if fd >= 0 {
                // SAFETY: the kernel just gave us this descriptor.
                return Ok(ExitWatch::PidFd(unsafe {
                    OwnedFd::from_raw_fd(fd as RawFd)
                }));
            }
        }
        let slot = Arc::new(Mutex::new(None));
        let out = slot.clone();
        std::thread::Builder::new()
            .name(format!("ptypilot-reaper-{pid}"))
            .stack_size(64 << 10)
            .spawn(move || {
                let status = nix::sys::wait::waitpid(NixPid::from_raw(pid), None).ok();
                *out.lock().unwrap_or_else(|e| e.into_inner()) = status;
            })?;
        Ok(ExitWatch::Thread(slot))
    }
}

/// Wakes the session thread out of `poll`.
///
/// Its descriptors are closed as soon as the session ends (not when the last
/// handle to the session is dropped), so finished sessions hold no descriptor;
/// a wake-up after that is a no-op.
struct Waker {
    fds: std::sync::RwLock<Option<(OwnedFd, Option<OwnedFd>)>>,
}

impl Waker {
    fn new() -> std::io::Result<Waker> {
        #[cfg(target_os = "linux")]
        let fds = {
            // SAFETY: eventfd returns a new descriptor or -1.
            let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: the kernel just gave us this descriptor; one eventfd
            // serves as both ends.
            (unsafe { OwnedFd::from_raw_fd(fd) }, None)
        };
        #[cfg(not(target_os = "linux"))]
        let fds = {
            let (read, write) = nix::unistd::pipe().map_err(std::io::Error::from)?;
            for fd in [&read, &write] {
                set_nonblocking(fd.as_raw_fd())?;
                // SAFETY: sets FD_CLOEXEC on a descriptor we own.
                unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
            }
            (read, Some(write))
        };
        Ok(Waker {
            fds: std::sync::RwLock::new(Some(fds)),
        })
    }

    /// The descriptor to poll (-1 once closed, which `poll` ignores).
    fn fd(&self) -> RawFd {
        let fds = self.fds.read().unwrap_or_else(|e| e.into_inner());
        fds.as_ref().map_or(-1, |(read, _)| read.as_raw_fd())
    }

    fn wake(&self) {
        let fds = self.fds.read().unwrap_or_else(|e| e.into_inner());
        let Some((read, write)) = fds.as_ref() else {
            return;
        };
        let fd = write.as_ref().unwrap_or(read).as_raw_fd();
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a local to a descriptor kept open by the
        // read lock; a full pipe/counter already means "awake".
        unsafe { libc::write(fd, (&one as *const u64).cast(), 8) };
    }

    fn drain(&self) {
        let fd = self.fd();
        let mut buf = [0u8; 64];
        // SAFETY: reads into a local buffer until the descriptor is empty.
        while fd >= 0 && unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
    }

    fn close(&self) {
        self.fds.write().unwrap_or_else(|e| e.into_inner()).take();
    }
}
