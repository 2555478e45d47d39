//! The listener's side of a session: attaching it, taking the outbox, and
//! reading on the listener's own thread: the listener holds the terminal for
//! a while after a write (the keystroke fast path) and while it keeps up with
//! a flood, and reads what comes itself.
#[cfg(unix)]
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::Ordering;

#[cfg(unix)]
use super::Ready;
#[cfg(unix)]
use super::output::{FLOOD_WAKE, ReadEnd, ReadMode, Stream, Wake};
#[cfg(unix)]
use super::sys::read_into;
use super::{EventSink, Outbox, Session};

/// A read of this many bytes found the terminal's buffer full: more is on its
/// way. Linux's line discipline buffers 4 KiB and a read of a full one
/// returns 4095 bytes (in floods, 28 687 of 30 100 reads of the 60 MB line;
/// node-pty's reads are the same).
#[cfg(unix)]
const FULL_READ: usize = (4 << 10) - 1;

impl Session {
    /// Attaches the listener. It is woken at once if output (or the exit) is
    /// already waiting, and released once it took the exit.
    pub fn attach(&self, sink: Arc<dyn EventSink>) {
        let mut inner = self.lock();
        let waiting = inner.outbox_waiting() && !inner.user_paused;
        // Not once the exit was taken: no wake-up comes after it.
        if inner.exit.is_none() || inner.outbox.exit.is_some() {
            inner.sink = Some(sink.clone());
        }
        let wake = waiting && !std::mem::replace(&mut inner.wake_pending, true);
        drop(inner);
        if wake {
            sink.wake();
        }
    }

    /// Takes all undelivered output and, after it, the exit if it happened.
    ///
    /// Call it on [`EventSink::wake`]. If the loop paused reading because the
    /// outbox was full, this resumes it. While the listener has paused the
    /// session ([`Session::pause`]) it takes nothing. The listener is
    /// released when it takes the exit — not before: a wake-up for the exit
    /// that finds the session paused (a pause between the wake-up and the
    /// take, from output the listener read itself meanwhile) is followed by
    /// another at [`Session::resume`].
    pub fn take_outbox(&self) -> Outbox {
        let mut inner = self.lock();
        inner.wake_pending = false;
        if inner.user_paused {
            return Outbox::default();
        }
        let out = std::mem::take(&mut inner.outbox);
        let resume = std::mem::take(&mut inner.paused);
        // The last wake-up: the listener is let go (outside the lock).
        let released = out.exit.is_some().then(|| inner.sink.take());
        drop(inner);
        drop(released);
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
    #[cfg(unix)]
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
    /// [`Session::dup_master`]) — one `read`, as libuv reads a stream (see
    /// [`ReadMode::Once`]) — processes it exactly as the session thread
    /// would, and returns the output waiting for the listener (never the exit:
    /// that always comes through [`EventSink::wake`]) — or, in a flood (the
    /// listener took the terminal for one: `flood`, or the read found the
    /// terminal's buffer full), leaves it waiting and says so
    /// ([`Ready::owed`]) until more than a few reads' worth waits.
    ///
    /// For a listener that holds the terminal ([`Session::listener_holds`])
    /// and was woken by it. Each read that brought output renews the hold, so
    /// a listener that keeps reading keeps the terminal, a flood included
    /// (one thread fewer between the program and the listener: see
    /// [`Session::listener_holds`]). [`Ready::keep`] says whether it still
    /// holds it: not once the terminal reached its end, the listener is
    /// behind or paused, or the session thread took the terminal back (the
    /// hold went [`LISTENER_HOLD`](super::LISTENER_HOLD) without a read or a
    /// write). Reads nothing when the listener does not hold the terminal.
    #[cfg(unix)]
    pub fn read_ready(&self, master: BorrowedFd<'_>, flood: bool) -> Ready {
        let hold = self.shared.listener_hold.load(Ordering::Relaxed);
        let mut reader = self.shared.lock_reader();
        {
            let inner = self.lock();
            // No `pty_fd` once the exit is known (it is cleared first).
            if hold == 0 || inner.held() || inner.pty_fd.is_none() {
                drop(inner);
                drop(reader);
                self.release(hold);
                return Ready::default();
            }
        }
        // End of file is the session thread's to see (it drains, then
        // publishes the exit); here it only means the listener lets go.
        let end = read_into(master.as_raw_fd(), &mut reader.batch, ReadMode::Once);
        let n = reader.batch.len();
        self.shared
            .process(&mut reader, 0, Stream::Terminal, Wake::Never);
        drop(reader);
        let mut inner = self.lock();
        let resume = std::mem::take(&mut inner.paused);
        let keep = matches!(end, ReadEnd::Again) && !resume && (n == 0 || self.renew(hold));
        // A read in a flood — the listener took the terminal for one, or the
        // read found the terminal's buffer full — leaves its output in the
        // outbox (in order with everything else) until `FLOOD_WAKE` bytes
        // wait or, for a full read, a read that is not full comes (the usual
        // end of a flood); the listener's timer delivers the rest 1 ms after
        // the last read. So a flood costs the listener one call per
        // `FLOOD_WAKE` instead of one per read — also one written a line per
        // `write` (`seq`), whose reads rarely fill the buffer. Only while the
        // listener keeps the terminal: otherwise it takes everything now.
        let waiting = inner.outbox.data.len() + inner.outbox.raw.len();
        let owed = keep && (n >= FULL_READ || flood) && waiting < FLOOD_WAKE;
        let (data, raw) = if owed {
            (String::new(), Vec::new())
        } else {
            (
                std::mem::take(&mut inner.outbox.data),
                std::mem::take(&mut inner.outbox.raw),
            )
        };
        drop(inner);
        if !keep {
            self.release(hold);
        }
        Ready {
            data,
            raw,
            keep,
            owed,
        }
    }

    /// The output waiting for the listener, without the exit (that always
    /// comes through [`EventSink::wake`]): for a listener that read on its
    /// own thread and was told that output waits ([`Ready::owed`]), once no
    /// more came. Nothing while the listener paused the session.
    pub fn take_output(&self) -> (String, Vec<u8>) {
        let mut inner = self.lock();
        if inner.user_paused {
            return (String::new(), Vec::new());
        }
        let data = std::mem::take(&mut inner.outbox.data);
        let raw = std::mem::take(&mut inner.outbox.raw);
        let resume = std::mem::take(&mut inner.paused);
        drop(inner);
        if resume {
            self.shared.waker.wake();
        }
        (data, raw)
    }

    /// Renews hold `hold` after a read that brought output: a new hold, so
    /// the session thread's clock for taking the terminal back starts again.
    /// False when the session thread took it back meanwhile.
    #[cfg(unix)]
    fn renew(&self, hold: u64) -> bool {
        let next = self.shared.holds.fetch_add(1, Ordering::Relaxed) + 1;
        self.shared
            .listener_hold
            .compare_exchange(hold, next, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// The listener takes the terminal for a while (`true`) or lets it go
    /// (`false`): while it holds it, the session thread does not read the
    /// terminal and only the listener is woken by its output, which it reads
    /// with [`Session::read_ready`] — one wake-up from a keystroke to its
    /// echo, and in a flood one thread fewer (the program, the kernel's tty
    /// worker and the listener, as in a library that reads on the JS thread),
    /// as when reading on the listener's own thread.
    ///
    /// A listener takes it after every write (the keystroke fast path) and
    /// when it was woken for a flood the session thread read (so it reads the
    /// rest itself while it keeps up); each read that brings output renews
    /// it. The session thread takes the terminal back
    /// [`LISTENER_HOLD`](super::LISTENER_HOLD) after the last renewal (so a
    /// listener that stopped reading — a JS thread busy elsewhere — stalls the
    /// program for at most that long, and the session thread then reads,
    /// holding up to [`OUTBOX_HIGH_WATER`](super::OUTBOX_HIGH_WATER) for the
    /// listener), at the program's exit (the drain is the session thread's),
    /// and when `read_ready` lets go.
    pub fn listener_holds(&self, on: bool) {
        if on {
            let hold = self.shared.holds.fetch_add(1, Ordering::Relaxed) + 1;
            self.shared.listener_hold.store(hold, Ordering::Relaxed);
        } else {
            self.release(self.shared.listener_hold.load(Ordering::Relaxed));
        }
    }

    /// True while the listener holds the terminal (see
    /// [`Session::listener_holds`]).
    pub fn listener_holding(&self) -> bool {
        self.shared.listener_hold.load(Ordering::Relaxed) != 0
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
    pub fn give_back(&self, data: String, raw: Vec<u8>) {
        if data.is_empty() && raw.is_empty() {
            return;
        }
        let mut inner = self.lock();
        let rest = std::mem::take(&mut inner.outbox.data);
        inner.outbox.data = data;
        inner.outbox.data.push_str(&rest);
        let rest = std::mem::take(&mut inner.outbox.raw);
        inner.outbox.raw = raw;
        inner.outbox.raw.extend_from_slice(&rest);
        let sink = inner.sink_to_wake();
        drop(inner);
        if let Some(sink) = sink {
            sink.wake();
        }
    }

    /// What the listener receives from the next processed output on: text
    /// ([`Outbox::data`]), raw bytes ([`Outbox::raw`]), both or neither.
    /// Output processed before is not put in the outbox again (it is in the
    /// transcript and on the screen).
    pub fn set_streams(&self, text: bool, raw: bool) {
        let mut inner = self.lock();
        inner.sink_output = text;
        inner.sink_raw = raw;
        if !text {
            inner.outbox.data = String::new();
        }
        if !raw {
            inner.outbox.raw = Vec::new();
        }
    }

    /// Flow control for the listener: stops reading the terminal, so the
    /// program blocks in its next write once the pty's buffer (a few KiB) is
    /// full, and hands the listener nothing — no output, no exit — until
    /// [`Session::resume`]. Nothing is dropped. What waits meanwhile is what
    /// the outbox held (at most [`OUTBOX_HIGH_WATER`]) plus at most one batch
    /// ([`READ_BATCH`](super::READ_BATCH)) being read when the pause came.
    ///
    /// [`OUTBOX_HIGH_WATER`]: super::OUTBOX_HIGH_WATER
    pub fn pause(&self) {
        self.lock().user_paused = true;
        // The fast path lets go of the terminal, and the loop stops watching
        // it: nothing is read while paused.
        self.listener_holds(false);
        self.shared.waker.wake();
    }

    /// Ends a [`Session::pause`]: the loop reads again and the listener is
    /// woken for what waited (and the exit, if it came meanwhile, after it).
    pub fn resume(&self) {
        let mut inner = self.lock();
        if !std::mem::take(&mut inner.user_paused) {
            return;
        }
        let sink = if inner.outbox_waiting() {
            inner.sink_to_wake()
        } else {
            None
        };
        drop(inner);
        self.shared.waker.wake();
        if let Some(sink) = sink {
            sink.wake();
        }
    }

    /// True between [`Session::pause`] and [`Session::resume`].
    pub fn is_paused(&self) -> bool {
        self.lock().user_paused
    }
}
