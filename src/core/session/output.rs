//! Output: reading it in batches, and processing a batch — the UTF-8 decoder,
//! the screen model (whose answers to terminal queries go back to the
//! program), the transcript, the capture of a one-shot run and the outbox for
//! the listener.
use std::time::Instant;

use super::state::{Reader, Shared};
use super::sys::write_some;
use super::{OUTBOX_HIGH_WATER, READ_BATCH, STDERR_KEPT};
use crate::core::transcript::{HeadTail, Stripper};

impl Shared {
    /// Processes `reader.batch` (read from output `i`, of kind `stream`): the
    /// screen, the transcript, the capture and the outbox, and answers to
    /// terminal queries go to the program.
    ///
    /// Wakes the listener for the outbox per `wake`; returns true when it was
    /// not woken but output waits for it (a wake-up is owed: see
    /// [`Shared::wake_listener`]).
    pub(super) fn process(
        &self,
        reader: &mut Reader,
        i: usize,
        stream: Stream,
        wake: Wake,
    ) -> bool {
        if reader.batch.is_empty() {
            return false;
        }
        reader.last_read = Instant::now();
        let mut text = String::with_capacity(reader.batch.len());
        reader.decoders[i].decode(&reader.batch, &mut text);
        self.record(|r| r.output(&text));
        let (sink, owed) = {
            let mut inner = self.lock();
            let inner = &mut *inner;
            match stream {
                Stream::Terminal if inner.model_on => inner.model.process(
                    &reader.batch,
                    &mut reader.replies,
                    &inner.transcript,
                    inner.seq,
                ),
                Stream::Terminal | Stream::Stdout => {}
                Stream::Stderr => {
                    if let Some(tail) = &mut inner.stderr {
                        tail.extend(text.as_bytes());
                        let overflow = tail.len().saturating_sub(STDERR_KEPT);
                        tail.drain(..overflow);
                    }
                }
            }
            if inner.model_on {
                inner.transcript.push(&text);
            }
            if let Some(capture) = &mut inner.capture
                && (stream != Stream::Stderr || inner.capture_stderr)
            {
                capture.push(&text);
            }
            // Counted as the transcript counts (decoded bytes), so `seq` and a
            // transcript cursor are positions on one scale.
            inner.seq += text.len() as u64;
            inner.last_activity = Instant::now();
            let mut sink = None;
            let mut owed = false;
            let text_out = inner.sink_output && !text.is_empty();
            if text_out {
                if inner.outbox.data.is_empty() {
                    inner.outbox.data = text;
                } else {
                    inner.outbox.data.push_str(&text);
                }
            }
            if inner.sink_raw {
                inner.outbox.raw.extend_from_slice(&reader.batch);
            }
            if text_out || inner.sink_raw {
                let waiting = inner.outbox.data.len() + inner.outbox.raw.len();
                if waiting > OUTBOX_HIGH_WATER {
                    inner.paused = true;
                }
                match wake {
                    Wake::Now => sink = inner.sink_to_wake(),
                    Wake::Flood if waiting >= FLOOD_WAKE => sink = inner.sink_to_wake(),
                    Wake::Flood => owed = true,
                    Wake::Never => {}
                }
            }
            if !inner.answer_queries {
                // A front end answers the queries (it sees the same output);
                // the screen model only keeps its state.
                reader.replies.clear();
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
            (sink, owed)
        };
        reader.batch.clear();
        if reader.batch.capacity() > 4 * READ_BATCH {
            reader.batch = Vec::new();
        }
        if let Some(sink) = sink {
            sink.wake();
        }
        self.changed.send_modify(|g| *g += 1);
        owed
    }

    /// Wakes the listener if output waits for it in the outbox (and no
    /// wake-up is pending): the wake-up [`Shared::process`] left owed.
    pub(super) fn wake_listener(&self) {
        let sink = {
            let mut inner = self.lock();
            if inner.outbox.data.is_empty() && inner.outbox.raw.is_empty() {
                None
            } else {
                inner.sink_to_wake()
            }
        };
        if let Some(sink) = sink {
            sink.wake();
        }
    }
}

/// When [`Shared::process`] wakes the listener for new output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wake {
    /// At once.
    Now,
    /// In a flood (the read filled a whole batch, so more is on the way):
    /// once [`FLOOD_WAKE`] bytes wait; otherwise the wake-up is owed and the
    /// session thread pays it when the flood pauses.
    Flood,
    /// Not at all: the listener reads on its own thread and takes the outbox
    /// itself. (Unix: Windows has no listener reads.)
    #[cfg_attr(windows, allow(dead_code))]
    Never,
}

/// In a flood, the listener is woken once this much output waits (see
/// [`Wake::Flood`]): each wake-up costs both threads a context switch, and
/// a JS call per 16 KiB batch costs more than the copy of the text.
pub(super) const FLOOD_WAKE: usize = 64 << 10;

/// Why [`read_into`](super::sys::read_into) stopped.
pub(super) enum ReadEnd {
    /// Nothing more to read right now, or the batch is full.
    Again,
    /// End of file, or (pty master) every holder of the terminal closed it.
    Eof,
}

/// How [`read_into`](super::sys::read_into) reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ReadMode {
    /// Until the terminal has nothing more right now or the batch is full:
    /// the session thread, which sleeps in `poll` between batches.
    Drain,
    /// One `read`, and another only while each fills the batch's room — how
    /// libuv reads a stream, and what a listener reading on its own thread
    /// does each time its watch fires (it fires again while more waits).
    ///
    /// Why not [`ReadMode::Drain`] there: a `read` that finds the line
    /// discipline's buffer empty waits for the kernel's flip-buffer worker to
    /// bring what the program wrote meanwhile (`tty_buffer_flush_work`), so
    /// reading until `EAGAIN` in a flood is a string of small reads, each a
    /// sleep and a wake-up in step with that worker (on `seq 1 1500000` the
    /// session thread read 1.3 KB per `read` and slept 677 times per MiB,
    /// 8 reads per `poll`; node-pty, reading once per wake-up, 2.3 KB per
    /// `read` and 412 sleeps: see
    /// bench/notes/2026-11-27-where-the-time-goes-in-a-flood.md).
    /// (Unix: Windows has no listener reads.)
    #[cfg_attr(windows, allow(dead_code))]
    Once,
}

/// Output kept for a one-shot run: stripped text, the head and the tail.
#[derive(Debug)]
pub(super) struct Capture {
    pub(super) stripper: Stripper,
    pub(super) kept: HeadTail,
    pub(super) scratch: String,
}

impl Capture {
    pub(super) fn new(limit: usize) -> Self {
        Capture {
            stripper: Stripper::default(),
            kept: HeadTail::new(limit),
            scratch: String::new(),
        }
    }

    pub(super) fn push(&mut self, text: &str) {
        let mut out = std::mem::take(&mut self.scratch);
        self.stripper.feed(text, &mut out);
        self.kept.push(&out);
        out.clear();
        self.scratch = out;
    }

    pub(super) fn finish(&mut self) {
        let mut out = String::new();
        self.stripper.flush_line(&mut out);
        self.kept.push(&out);
    }

    pub(super) fn text(&self) -> (String, bool) {
        self.kept.text()
    }
}

/// Which stream a piece of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stream {
    /// The pty master: everything the program wrote to the terminal.
    Terminal,
    /// A pipes program's stdout.
    Stdout,
    /// A pipes program's stderr.
    Stderr,
}
