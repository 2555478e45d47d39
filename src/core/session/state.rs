//! What the session thread and its callers share: the state behind one lock
//! ([`Inner`]), the reader's buffers ([`Reader`]) and the commands queued for
//! the thread.
use std::collections::VecDeque;
use std::ffi::CString;

use crate::core::fds::RawFd;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use crate::core::signal::Signal;
use tokio::sync::watch;

use super::model::Model;
use super::output::Capture;
use super::record::Recorder;
use super::sys::Waker;
use super::{EventSink, Exit, Outbox};
use crate::core::transcript::Transcript;
use crate::core::tty;
use crate::core::utf8::Utf8Decoder;

#[derive(Debug)]
pub(super) enum Command {
    Signal(Signal),
    /// Cancel: TERM, `grace`, KILL.
    Terminate {
        grace: Duration,
    },
}

/// What the session thread and its callers share.
pub(super) struct Shared {
    pub(super) inner: Mutex<Inner>,
    /// Held from a read of the output through its processing, by the session
    /// thread or by a listener reading on its own thread
    /// ([`Session::read_ready`](super::Session::read_ready)), so output is processed in the order it was
    /// read. Taken before `inner`, never after.
    pub(super) reader: Mutex<Reader>,
    /// Bumped after each processed batch and at the exit; async waiters watch it.
    pub(super) changed: watch::Sender<u64>,
    /// While the listener holds the terminal (reads it on its own thread):
    /// the number of that hold (from `holds`); else 0.
    pub(super) listener_hold: AtomicU64,
    /// Holds so far.
    pub(super) holds: AtomicU64,
    pub(super) waker: Waker,
    /// The recording, when the session is recorded. Locked last, after
    /// `reader` and `inner` when those are held.
    pub(super) recorder: Option<Mutex<Recorder>>,
    /// The terminal's slave path and device number, found at the first look
    /// at the program's input state (`None` inside when they cannot be).
    pub(super) terminal: OnceLock<Option<(CString, u64)>>,
    /// The sandbox the program runs under (`None`: off).
    pub(super) sandbox: Option<crate::core::sandbox::Applied>,
}

/// What reading and processing output needs besides [`Inner`].
pub(super) struct Reader {
    /// One per output, in the order of the loop's outputs.
    pub(super) decoders: Vec<Utf8Decoder>,
    pub(super) batch: Vec<u8>,
    /// Answers to terminal queries found in the output, not yet written.
    pub(super) replies: Vec<u8>,
    /// When output last arrived: the drain clock after the exit.
    pub(super) last_read: Instant,
}

pub(super) struct Inner {
    /// The screen model, behind the panic boundary.
    pub(super) model: Model,
    /// Output is fed to the model and the transcript
    /// ([`SpawnOptions::model`](super::SpawnOptions::model)).
    pub(super) model_on: bool,
    pub(super) transcript: Transcript,
    /// Output processed so far, in bytes of decoded (UTF-8) text: the
    /// transcript's cursor scale.
    pub(super) seq: u64,
    /// Last output processed, input written or resize: the settle clock. Input
    /// counts so that a settle right after a keystroke waits for the answer
    /// instead of returning at once because the screen was quiet before it.
    pub(super) last_activity: Instant,
    pub(super) outbox: Outbox,
    pub(super) sink: Option<Arc<dyn EventSink>>,
    /// Output goes to the listener (not only the exit).
    pub(super) sink_output: bool,
    /// Raw output bytes go to the listener too.
    pub(super) sink_raw: bool,
    /// The screen model's answers to terminal queries go to the program.
    pub(super) answer_queries: bool,
    /// The listener was woken and has not taken the outbox yet.
    pub(super) wake_pending: bool,
    /// The loop stopped reading because the outbox is full.
    pub(super) paused: bool,
    /// The listener asked for a pause ([`Session::pause`](super::Session::pause)):
    /// nothing is read and nothing is handed to it until it resumes.
    pub(super) user_paused: bool,
    /// Where input goes (the pty master or the stdin pipe), while open.
    pub(super) input_fd: Option<RawFd>,
    /// The pty master, for resizing (none for pipes).
    pub(super) pty_fd: Option<RawFd>,
    /// The slave's path, read from the master at the start (before the
    /// program could end and the loop close the master): kept after the exit.
    pub(super) pts_name: Option<String>,
    /// Input that did not fit into the pty yet.
    pub(super) queue: VecDeque<u8>,
    /// Writes so far (a look at the input state notices one made meanwhile).
    pub(super) writes: u64,
    /// `seq` at the last write (0 before any).
    pub(super) input_seq: u64,
    /// The terminal's slave, opened by the first look at the input state
    /// and closed when the program exits (until then the program holds the
    /// terminal open anyway, so the master's end-of-file is not delayed).
    pub(super) probe_slave: Option<crate::core::tty::Slave>,
    /// The program was reaped: no slave is opened any more.
    pub(super) child_exited: bool,
    pub(super) commands: Vec<Command>,
    pub(super) exit: Option<Exit>,
    pub(super) capture: Option<Capture>,
    /// Pipes only: the tail of stderr.
    pub(super) stderr: Option<VecDeque<u8>>,
    /// Pipes only: captured output includes stderr.
    pub(super) capture_stderr: bool,
}

impl Inner {
    /// The loop must not read the terminal now.
    pub(super) fn held(&self) -> bool {
        self.paused || self.user_paused
    }

    /// Output or the exit is waiting in the outbox.
    pub(super) fn outbox_waiting(&self) -> bool {
        !self.outbox.data.is_empty() || !self.outbox.raw.is_empty() || self.outbox.exit.is_some()
    }

    /// The listener, when it is to be woken for what the outbox now holds
    /// (not when a wake-up is already pending); marks the wake-up pending.
    pub(super) fn sink_to_wake(&mut self) -> Option<Arc<dyn EventSink>> {
        if self.sink.is_some() && !std::mem::replace(&mut self.wake_pending, true) {
            self.sink.clone()
        } else {
            None
        }
    }
}

impl Shared {
    pub(super) fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent-enough state (plain
        // buffers); keep serving rather than poisoning every later call.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn lock_reader(&self) -> MutexGuard<'_, Reader> {
        self.reader.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on the recording, when the session is recorded.
    pub(super) fn record(&self, f: impl FnOnce(&mut Recorder)) {
        if let Some(recorder) = &self.recorder {
            // A panic while it was held leaves a file that is valid up to
            // its last whole line.
            f(&mut recorder.lock().unwrap_or_else(|e| e.into_inner()));
        }
    }

    /// The terminal's slave path and device number (see `terminal`);
    /// `master` must be the open pty master.
    pub(super) fn terminal(&self, master: RawFd) -> Option<&(CString, u64)> {
        self.terminal
            .get_or_init(|| {
                let slave = tty::slave_path(master)?;
                let device = tty::device(&slave)?;
                Some((slave, device))
            })
            .as_ref()
    }

    pub(super) fn last_read(&self) -> Instant {
        self.lock_reader().last_read
    }
}
