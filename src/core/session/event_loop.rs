//! The session thread (`ptypilot-session-<pid>`): it owns the descriptors
//! until the program has exited and its output was drained. It polls the
//! output, the writer queue, the wake-up descriptor and the exit watch; reads
//! in batches; writes queued input when the pty can take it; reaps the child;
//! and publishes the exit only after the drain, last in the outbox.
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::output::{ReadEnd, ReadMode, Stream, Wake};
use super::spawn::Io;
use super::state::{Command, Inner, Shared};
use super::sys::{
    self, ExitWatch, POLLERR, POLLHUP, POLLIN, POLLNVAL, POLLOUT, PollFd, read_into, write_some,
};
use super::terminate::Termination;
use super::{
    DEFAULT_GRACE, DRAIN_LAST_BATCHES, DRAIN_MAX, Exit, KILL_WAIT, LISTENER_HOLD, READ_BATCH,
    TREE_POLL,
};
use crate::core::fds::RawFd;
use crate::core::signal::Signal;

/// Panics in a row after which the session thread gives up (see [`Loop::run`]).
const LOOP_PANICS_MAX: u32 = 3;
use crate::core::guard;
use crate::core::proc_tree::{self, Pid, ProcRef};
use crate::core::utf8::Utf8Decoder;

/// One descriptor the loop reads output from.
pub(super) struct Output {
    pub(super) fd: RawFd,
    pub(super) stream: Stream,
    pub(super) eof: bool,
}

/// The session thread's state.
pub(super) struct Loop {
    pub(super) shared: Arc<Shared>,
    pub(super) outputs: Vec<Output>,
    pub(super) input_fd: Option<RawFd>,
    /// Owns the descriptors; dropped (closed) when the loop ends.
    pub(super) io: Io,
    pub(super) pid: Pid,
    /// The program's identity (pid and start time), taken at spawn.
    pub(super) root: Option<ProcRef>,
    pub(super) exit_watch: ExitWatch,
    pub(super) deadline: Option<Instant>,
    pub(super) status: Option<Exit>,
    /// When the program exited, or when a hold on reading during the drain
    /// (a listener behind or paused) last ended: the drain clock's start.
    pub(super) exited_at: Option<Instant>,
    /// The loop saw reading held during the drain and has not seen it end.
    pub(super) drain_held: bool,
    /// The quiet period that ends a drain the terminal's end does not end
    /// ([`SpawnOptions::drain_idle`](super::SpawnOptions::drain_idle)).
    pub(super) drain_idle: Duration,
    pub(super) termination: Option<Termination>,
    /// The listener's hold on the terminal last seen, and when: it is taken
    /// back if still the same `LISTENER_HOLD` later.
    pub(super) hold_seen: Option<(u64, Instant)>,
    /// Output waits for the listener, which was not woken for it because a
    /// flood was being read ([`Wake::Flood`]): the next `poll` does not sleep,
    /// and if it finds nothing to read the listener is woken.
    pub(super) wake_owed: bool,
    /// The sandboxed program's private temporary folder, removed when the
    /// loop ends (after the exit and the drain).
    pub(super) _sandbox_temp: Option<crate::core::sandbox::Kept>,
}

impl Loop {
    /// Runs until the program exited and its output was drained (and, after a
    /// termination, its process tree is gone), then publishes the exit.
    ///
    /// Each round runs under the panic boundary: a panic in the loop's own
    /// code is reported and the round tried again; after [`LOOP_PANICS_MAX`]
    /// in a row the program's tree is killed and the exit published, so
    /// `exited` always comes.
    pub(super) fn run(mut self) {
        let mut exit_flags = Exit::default();
        let mut panics = 0;
        loop {
            match guard::catch(|| self.round(&mut exit_flags)) {
                Ok(true) => break,
                Ok(false) => panics = 0,
                Err(incident) => {
                    panics += 1;
                    let giving_up = panics >= LOOP_PANICS_MAX;
                    guard::report(&format!(
                        "the session thread of pid {} panicked: {}{}",
                        self.pid,
                        incident.message,
                        if giving_up {
                            "; the program was killed and its exit published"
                        } else {
                            ""
                        }
                    ));
                    if giving_up {
                        self.give_up(&mut exit_flags);
                        break;
                    }
                }
            }
        }
        self.publish_exit(exit_flags);
    }

    /// One round of the loop: timeouts, commands, termination, then one
    /// `poll`. True once the session is finished.
    fn round(&mut self, flags: &mut Exit) -> bool {
        let now = Instant::now();
        if let Some(deadline) = self.deadline
            && now >= deadline
        {
            self.deadline = None;
            flags.timed_out = true;
            self.start_termination(DEFAULT_GRACE);
        }
        let commands = std::mem::take(&mut self.shared.lock().commands);
        for command in commands {
            match command {
                Command::Signal(sig) => {
                    if self.status.is_none() {
                        self.signal_program(sig);
                    }
                }
                Command::Terminate { grace } => {
                    flags.cancelled = true;
                    self.start_termination(grace);
                }
            }
        }
        self.advance_termination(now);
        if self.finished(now) {
            return true;
        }
        self.poll_once(now);
        false
    }

    /// After repeated panics: SIGKILL to the program and its tree, and its
    /// status collected if it comes within `KILL_WAIT`.
    fn give_up(&mut self, flags: &mut Exit) {
        flags.cancelled = true;
        if self.status.is_some() {
            return;
        }
        let roots: Vec<ProcRef> = self.root.into_iter().collect();
        let _ = guard::catch(|| proc_tree::kill_hard(&roots, &[self.pid], &mut Vec::new()));
        self.signal_program(Signal::SIGKILL);
        let until = Instant::now() + KILL_WAIT;
        while self.status.is_none() && Instant::now() < until {
            if guard::catch(|| self.reap()).is_err() {
                break;
            }
            std::thread::sleep(TREE_POLL);
        }
    }

    pub(super) fn finished(&mut self, now: Instant) -> bool {
        if self.exited_at.is_none() {
            return false;
        }
        if let Some(t) = &self.termination
            && t.targets.iter().any(ProcRef::alive)
            && t.give_up_at.is_none_or(|g| now < g)
        {
            return false;
        }
        if self.eof() {
            return true;
        }
        if self.shared.lock().held() {
            // The listener is behind or paused; the drain clock stops until
            // it catches up.
            self.drain_held = true;
            return false;
        }
        if std::mem::take(&mut self.drain_held) {
            // ... and starts again then: what waited in the pty is still to
            // be read.
            self.exited_at = Some(now);
        }
        let exited_at = self.exited_at.unwrap_or(now);
        let idle_since = self.shared.last_read().max(exited_at);
        let over_max = now >= exited_at + DRAIN_MAX;
        if now < idle_since + self.drain_idle && !over_max {
            return false;
        }
        if sys::output_idle(&self.io) {
            // Windows: the pseudo console was closed just now, which ends
            // its output once the console host flushed it; drain that.
            self.exited_at = Some(now);
            return false;
        }
        // The clocks ran out, but they run whether or not this thread does:
        // after a stall (a busy machine, a slow listener) what the program
        // wrote before it exited may still be in the pty, unread. So the
        // drain ends only when one more read finds nothing — or, at the
        // latest, once that read took what the pty holds (bounded: a
        // background process may write without end).
        let got = self.read_pending(if over_max { DRAIN_LAST_BATCHES } else { 1 });
        self.eof() || over_max || !got
    }

    /// Reads what the outputs hold right now, up to `batches` batches each;
    /// true if anything came (or an output reached its end).
    fn read_pending(&mut self, batches: usize) -> bool {
        let mut got = false;
        for i in 0..self.outputs.len() {
            for _ in 0..batches {
                if self.outputs[i].eof {
                    break;
                }
                let n = self.read_batch(i);
                got |= n > 0 || self.outputs[i].eof;
                if n < READ_BATCH {
                    break;
                }
            }
        }
        got
    }

    /// True once every output reached end-of-file.
    pub(super) fn eof(&self) -> bool {
        self.outputs.iter().all(|o| o.eof)
    }

    pub(super) fn poll_once(&mut self, now: Instant) {
        let (paused, want_write) = {
            let inner = self.shared.lock();
            (
                inner.held(),
                !inner.queue.is_empty() && inner.input_fd.is_some(),
            )
        };
        let mut fds = Vec::with_capacity(4);
        fds.push(PollFd {
            fd: self.shared.waker.fd(),
            events: POLLIN,
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
                let events = if read { POLLIN } else { 0 } | if write { POLLOUT } else { 0 };
                fds.push(PollFd {
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
            fds.push(PollFd {
                fd,
                events: POLLOUT,
                revents: 0,
            });
            write_slot = Some(fds.len() - 1);
        }
        let exit_idx = match (self.exit_watch.fd(), self.status.is_none()) {
            (Some(fd), true) => {
                fds.push(PollFd {
                    fd,
                    events: POLLIN,
                    revents: 0,
                });
                Some(fds.len() - 1)
            }
            _ => None,
        };
        let timeout = self.next_timeout(now, paused);
        // Rounded up: a timeout of less than a millisecond must not spin.
        let timeout_ms = if self.wake_owed {
            0
        } else {
            timeout.map_or(-1, |t| {
                t.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32
            })
        };
        let n = sys::poll(&mut fds, timeout_ms);
        if n < 0 {
            return; // EINTR: go round again.
        }
        if fds[0].revents != 0 {
            self.shared.waker.drain();
        }
        let mut read = false;
        for (slot, i) in read_slots {
            if fds[slot].revents & (POLLIN | POLLHUP | POLLERR) == 0 {
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
            read = true;
        }
        if self.wake_owed && !read {
            // The flood paused (or reading is held): the listener gets what
            // waits now.
            self.wake_owed = false;
            self.shared.wake_listener();
        }
        if let Some(slot) = write_slot {
            let revents = fds[slot].revents;
            if revents & POLLOUT != 0 {
                self.flush_queue();
            } else if revents & (POLLERR | POLLHUP | POLLNVAL) != 0 {
                // Nobody reads the input any more: drop what is queued.
                self.shared.lock().queue.clear();
            }
        }
        let exited = match exit_idx {
            Some(i) => fds[i].revents != 0,
            None => true,
        };
        if exited && self.status.is_none() {
            self.reap();
        }
    }

    /// Whether the listener holds the terminal; takes it back when the hold
    /// is `LISTENER_HOLD` old or the program exited (the drain is this
    /// thread's).
    pub(super) fn listener_holds(&mut self, now: Instant) -> bool {
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

    /// How long `poll` may sleep. While reading is `held`, the drain clock
    /// stands still (the end of the hold wakes the loop).
    pub(super) fn next_timeout(&self, now: Instant, held: bool) -> Option<Duration> {
        let mut next: Option<Instant> = self.deadline;
        let mut consider = |t: Instant| next = Some(next.map_or(t, |n| n.min(t)));
        if let Some((_, since)) = self.hold_seen {
            consider(since + LISTENER_HOLD);
        }
        if let Some(exited_at) = self.exited_at
            && !self.eof()
            && !held
        {
            consider(self.shared.last_read().max(exited_at) + self.drain_idle);
            consider(exited_at + DRAIN_MAX);
        }
        if let Some(t) = &self.termination {
            if !t.killed {
                consider(t.kill_at);
            }
            consider(now + TREE_POLL);
        }
        if self.exit_watch.fd().is_none() && self.status.is_none() {
            consider(now + TREE_POLL);
        }
        next.map(|t| t.saturating_duration_since(now))
    }

    /// Reads output `i` until it has nothing more right now (or a batch is
    /// full), then processes the batch; returns the bytes read.
    pub(super) fn read_batch(&mut self, i: usize) -> usize {
        let output = &mut self.outputs[i];
        let mut reader = self.shared.lock_reader();
        let end = read_into(output.fd, &mut reader.batch, ReadMode::Drain);
        let n = reader.batch.len();
        let wake = match end {
            // A full batch: the pty had more, a flood is being read.
            ReadEnd::Again if reader.batch.len() >= READ_BATCH => Wake::Flood,
            ReadEnd::Again => Wake::Now,
            ReadEnd::Eof => {
                output.eof = true;
                Wake::Now
            }
        };
        if self.shared.process(&mut reader, i, output.stream, wake) {
            self.wake_owed = true;
        } else if wake == Wake::Now {
            // Woken now (or nothing waits): nothing is owed any more.
            self.wake_owed = false;
        }
        n
    }

    pub(super) fn flush_queue(&mut self) {
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
    pub(super) fn reap(&mut self) {
        let Some(exit) = self.exit_watch.reap(self.pid) else {
            return;
        };
        self.status = Some(exit);
        self.exited_at = Some(Instant::now());
        // The input-state looks' descriptor of the slave must not keep the
        // terminal open now that the program is gone.
        let mut inner = self.shared.lock();
        inner.child_exited = true;
        inner.probe_slave = None;
    }

    /// Sends `signal` to the program (not its tree).
    fn signal_program(&self, signal: Signal) {
        sys::signal_program(self.pid, &self.io, signal);
    }

    pub(super) fn publish_exit(mut self, flags: Exit) {
        let mut exit = self.status.take().unwrap_or_default();
        exit.timed_out = flags.timed_out;
        exit.cancelled = flags.cancelled && !flags.timed_out;
        exit.at = Some(std::time::SystemTime::now());
        let sink = {
            let mut reader = self.shared.lock_reader();
            let mut inner = self.shared.lock();
            let inner = &mut *inner;
            let outputs = &self.outputs;
            // Whatever happens here, the rest must run: the exit must come.
            let _ = guard::catch(|| Self::flush_tails(outputs, &mut reader.decoders, inner));
            // The recording is complete when the exit is seen.
            self.shared.record(|r| r.finish());
            inner.input_fd = None;
            inner.pty_fd = None;
            inner.child_exited = true;
            inner.probe_slave = None;
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
            if inner.user_paused {
                // The listener paused: `resume` wakes it.
                None
            } else {
                // The listener is released when it takes the exit
                // (`take_outbox`).
                inner.sink_to_wake()
            }
        };
        if let Some(sink) = sink {
            sink.wake();
        }
        self.shared.changed.send_modify(|g| *g += 1);
    }

    /// Flushes characters cut off by the end of each output into the
    /// transcript, the outbox and the capture, and finishes the capture.
    fn flush_tails(outputs: &[Output], decoders: &mut [Utf8Decoder], inner: &mut Inner) {
        for (output, decoder) in outputs.iter().zip(decoders) {
            // A character cut off by the end of the stream.
            let mut tail = String::new();
            decoder.finish(&mut tail);
            if tail.is_empty() {
                continue;
            }
            inner.transcript.push(&tail);
            inner.seq += tail.len() as u64;
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
    }
}
