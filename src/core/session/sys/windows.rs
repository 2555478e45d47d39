//! The session's OS pieces on Windows (see the parent module for the
//! interface).
//!
//! Windows has no readiness for anonymous pipes (what ConPTY and a piped
//! program give us), so each pipe gets a thread: a reader that moves what
//! the program wrote into a buffer here, a writer that moves queued input
//! into the pipe. A "descriptor" ([`RawFd`]) is the number of such a
//! channel in one table; [`poll`] waits on the table's condition variable
//! until an entry is ready. The program's exit is a channel too: a thread
//! waits on the process handle and marks it.
//!
//! One lock and one condition variable serve every session of the process:
//! each change wakes every waiting session thread, which looks at its own
//! entries and sleeps again. That costs a few wake-ups per read with many
//! sessions; it keeps the loop's code the same as on Unix.
use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use windows_sys::Win32::Foundation::{STILL_ACTIVE, WAIT_OBJECT_0};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, INFINITE, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    PROCESS_SYNCHRONIZE, PROCESS_TERMINATE, TerminateProcess, WaitForSingleObject,
};

use super::super::Exit;
use super::super::READ_BATCH;
use super::super::output::{ReadEnd, ReadMode};
use super::super::spawn::Io;
use crate::core::fds::RawFd;
use crate::core::proc_tree::Pid;
use crate::core::pty::PseudoConsole;
use crate::core::signal::Signal;

/// Input may wait this much in a channel before [`write_some`] takes less.
const INPUT_KEPT: usize = 64 << 10;
/// A reader stops reading while this much output waits unread (the
/// program then blocks in its write, as it would on a full pty).
const OUTPUT_KEPT: usize = 1 << 20;

/// One entry of [`poll`], shaped as `poll(2)`'s.
#[derive(Debug, Clone, Copy)]
pub(in crate::core::session) struct PollFd {
    /// The channel (-1: ignored).
    pub fd: RawFd,
    /// What to wait for.
    pub events: i16,
    /// What is ready.
    pub revents: i16,
}

/// Output waits (or a wake-up, or the exit).
pub(in crate::core::session) const POLLIN: i16 = 0x1;
/// Input can be queued.
pub(in crate::core::session) const POLLOUT: i16 = 0x4;
/// The writer's pipe broke.
pub(in crate::core::session) const POLLERR: i16 = 0x8;
/// The reader reached the pipe's end and everything was read.
pub(in crate::core::session) const POLLHUP: i16 = 0x10;
/// No such channel.
pub(in crate::core::session) const POLLNVAL: i16 = 0x20;

/// One channel's state.
#[derive(Default)]
struct Chan {
    /// A reader thread feeds this channel.
    reads: bool,
    /// Output read from the pipe, not yet taken.
    data: VecDeque<u8>,
    /// The reader reached the pipe's end.
    eof: bool,
    /// Input waiting for the writer thread; `None`: no write side.
    input: Option<VecDeque<u8>>,
    /// The writer's pipe broke.
    broken: bool,
    /// A wake-up or the exit happened.
    flag: bool,
    /// The pseudo console whose output this channel reads, kept here so a
    /// resize can reach it by the channel's number and the exit can close it.
    console: Option<PseudoConsole>,
}

#[derive(Default)]
struct Table {
    next: RawFd,
    chans: HashMap<RawFd, Chan>,
}

fn table() -> &'static (Mutex<Table>, Condvar) {
    static TABLE: OnceLock<(Mutex<Table>, Condvar)> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

fn lock() -> MutexGuard<'static, Table> {
    table().0.lock().unwrap_or_else(|e| e.into_inner())
}

fn notify() {
    table().1.notify_all();
}

/// A channel's number, removed from the table when dropped.
#[derive(Debug)]
pub(in crate::core::session) struct Channel(RawFd);

impl Channel {
    fn new(chan: Chan) -> Channel {
        let mut t = lock();
        t.next += 1;
        let fd = t.next;
        t.chans.insert(fd, chan);
        Channel(fd)
    }

    /// The channel's number, for [`poll`], [`read_into`] and [`write_some`].
    pub(in crate::core::session) fn fd(&self) -> RawFd {
        self.0
    }

    /// A channel fed by a thread reading `source` until its end.
    pub(in crate::core::session) fn reader(
        source: Box<dyn Read + Send>,
        name: String,
    ) -> std::io::Result<Channel> {
        let chan = Channel::new(Chan {
            reads: true,
            ..Chan::default()
        });
        let fd = chan.0;
        std::thread::Builder::new()
            .name(name)
            .stack_size(64 << 10)
            .spawn(move || read_loop(fd, source))?;
        Ok(chan)
    }

    /// A channel whose queued input a thread writes to `sink`.
    pub(in crate::core::session) fn writer(
        sink: Box<dyn Write + Send>,
        name: String,
    ) -> std::io::Result<Channel> {
        let chan = Channel::new(Chan {
            input: Some(VecDeque::new()),
            ..Chan::default()
        });
        let fd = chan.0;
        std::thread::Builder::new()
            .name(name)
            .stack_size(64 << 10)
            .spawn(move || write_loop(fd, sink))?;
        Ok(chan)
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        let removed = lock().chans.remove(&self.0);
        notify();
        // Outside the lock: closing a pseudo console waits for its reader.
        if let Some(console) = removed.and_then(|c| c.console) {
            close_later(console);
        }
    }
}

/// Closes a pseudo console on a thread of its own: `ClosePseudoConsole`
/// can wait until its output pipe is drained (the reader thread does that).
fn close_later(console: PseudoConsole) {
    let _ = std::thread::Builder::new()
        .name("ptypilot-conpty-close".to_owned())
        .stack_size(64 << 10)
        .spawn(move || drop(console));
}

/// Keeps `console` with output channel `fd`, for [`resize`] and
/// [`close_console`].
pub(in crate::core::session) fn keep_console(fd: RawFd, console: PseudoConsole) {
    if let Some(chan) = lock().chans.get_mut(&fd) {
        chan.console = Some(console);
    }
}

/// Resizes the pseudo console kept with channel `fd` (`ResizePseudoConsole`).
pub(crate) fn resize(fd: RawFd, cols: u16, rows: u16) -> std::io::Result<()> {
    let t = lock();
    let console = t
        .chans
        .get(&fd)
        .and_then(|c| c.console.as_ref())
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotConnected))?;
    console.resize(cols, rows)
}

/// Closes the pseudo console kept with channel `fd`, so its output reaches
/// its end once drained; the channel stays readable. True when a console
/// was open until now.
pub(in crate::core::session) fn close_console(fd: RawFd) -> bool {
    let console = lock().chans.get_mut(&fd).and_then(|c| c.console.take());
    let open = console.is_some();
    if let Some(console) = console {
        close_later(console);
    }
    open
}

/// Reads `source` into channel `fd` until the pipe ends. Keeps reading (and
/// dropping) after the channel is gone, so the program never blocks on a
/// full pipe nobody reads (ConPTY's close waits for its pipe to drain).
fn read_loop(fd: RawFd, mut source: Box<dyn Read + Send>) {
    let mut buf = vec![0u8; READ_BATCH];
    loop {
        let n = source.read(&mut buf).unwrap_or(0);
        let (mutex, cond) = table();
        let mut t = mutex.lock().unwrap_or_else(|e| e.into_inner());
        while t
            .chans
            .get(&fd)
            .is_some_and(|c| c.data.len() >= OUTPUT_KEPT)
        {
            t = cond.wait(t).unwrap_or_else(|e| e.into_inner());
        }
        let Some(chan) = t.chans.get_mut(&fd) else {
            drop(t);
            if n == 0 {
                return;
            }
            continue;
        };
        if n == 0 {
            chan.eof = true;
        } else {
            chan.data.extend(&buf[..n]);
        }
        drop(t);
        notify();
        if n == 0 {
            return;
        }
    }
}

/// Writes what is queued in channel `fd` to `sink` until the channel is gone
/// or the pipe breaks.
fn write_loop(fd: RawFd, mut sink: Box<dyn Write + Send>) {
    let (mutex, cond) = table();
    loop {
        let mut t = mutex.lock().unwrap_or_else(|e| e.into_inner());
        let chunk = loop {
            match t.chans.get_mut(&fd) {
                None => return,
                Some(chan) => match chan.input.as_mut() {
                    Some(q) if !q.is_empty() => break q.drain(..).collect::<Vec<u8>>(),
                    _ => {}
                },
            }
            t = cond.wait(t).unwrap_or_else(|e| e.into_inner());
        };
        drop(t);
        let ok = sink.write_all(&chunk).and_then(|()| sink.flush()).is_ok();
        if !ok {
            if let Some(chan) = lock().chans.get_mut(&fd) {
                chan.broken = true;
                chan.input = Some(VecDeque::new());
            }
            notify();
            return;
        }
        notify();
    }
}

fn readiness(t: &Table, entry: &PollFd) -> i16 {
    if entry.fd < 0 {
        return 0;
    }
    let Some(chan) = t.chans.get(&entry.fd) else {
        return POLLNVAL;
    };
    let mut ready = 0;
    if entry.events & POLLIN != 0 && (!chan.data.is_empty() || chan.flag) {
        ready |= POLLIN;
    }
    if chan.reads && chan.eof && chan.data.is_empty() {
        ready |= POLLHUP;
    }
    if let Some(queue) = &chan.input {
        if chan.broken {
            ready |= POLLERR;
        } else if entry.events & POLLOUT != 0 && queue.len() < INPUT_KEPT {
            ready |= POLLOUT;
        }
    }
    ready
}

/// Waits until an entry is ready or `timeout_ms` passed (-1: no limit), as
/// `poll(2)` does; the number of ready entries.
pub(in crate::core::session) fn poll(fds: &mut [PollFd], timeout_ms: i32) -> i32 {
    let (mutex, cond) = table();
    let deadline =
        (timeout_ms >= 0).then(|| Instant::now() + Duration::from_millis(timeout_ms as u64));
    let mut t = mutex.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let mut n = 0;
        for entry in fds.iter_mut() {
            entry.revents = readiness(&t, entry);
            n += i32::from(entry.revents != 0);
        }
        if n > 0 {
            return n;
        }
        t = match deadline {
            None => cond.wait(t).unwrap_or_else(|e| e.into_inner()),
            Some(deadline) => {
                let now = Instant::now();
                if now >= deadline {
                    return 0;
                }
                cond.wait_timeout(t, deadline - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
        };
    }
}

/// Takes what channel `fd` holds into `batch`, at most until `READ_BATCH`
/// bytes are in it. Both [`ReadMode`]s read the same here: what the reader
/// thread brought is all there is.
pub(in crate::core::session) fn read_into(
    fd: RawFd,
    batch: &mut Vec<u8>,
    _mode: ReadMode,
) -> ReadEnd {
    let mut t = lock();
    let Some(chan) = t.chans.get_mut(&fd) else {
        return ReadEnd::Eof;
    };
    let room = READ_BATCH.saturating_sub(batch.len());
    let n = room.min(chan.data.len());
    batch.extend(chan.data.drain(..n));
    let end = if chan.data.is_empty() && (chan.eof || !chan.reads) {
        ReadEnd::Eof
    } else {
        ReadEnd::Again
    };
    drop(t);
    if n > 0 {
        // The reader may wait for room.
        notify();
    }
    end
}

/// Queues as much of `data` as channel `fd` takes now (its writer thread
/// writes it); 0 when it has no write side or its pipe broke.
pub(in crate::core::session) fn write_some(fd: RawFd, data: &[u8]) -> usize {
    let mut t = lock();
    let Some(chan) = t.chans.get_mut(&fd) else {
        return 0;
    };
    if chan.broken {
        return 0;
    }
    let Some(queue) = chan.input.as_mut() else {
        return 0;
    };
    let n = data.len().min(INPUT_KEPT.saturating_sub(queue.len()));
    queue.extend(&data[..n]);
    drop(t);
    if n > 0 {
        notify();
    }
    n
}

/// Sends `signal` to the program. Windows has no signals: `SIGINT` on a
/// pseudo console is Ctrl+C typed into it (ConPTY turns `0x03` into
/// `CTRL_C_EVENT` for the console's processes), `SIGBREAK` likewise
/// Ctrl+Break is not typeable and is ignored; every other signal ends the
/// program at once (`TerminateProcess`, exit code 1, as node-pty's `kill`),
/// and on a pseudo console with the whole Job Object.
pub(in crate::core::session) fn signal_program(pid: Pid, io: &Io, signal: Signal) -> bool {
    match signal {
        Signal::SIGINT => io.type_interrupt(),
        Signal::SIGBREAK | Signal::SIGWINCH | Signal::SIGSTOP | Signal::SIGCONT => false,
        _ => {
            if io.terminate_job() {
                return true;
            }
            terminate_pid(pid)
        }
    }
}

/// `TerminateProcess(pid, 1)`; false if the process cannot be opened.
pub(in crate::core::session) fn terminate_pid(pid: Pid) -> bool {
    // SAFETY: OpenProcess returns a new handle or null; it is owned below.
    let handle = unsafe { OpenProcess(PROCESS_TERMINATE, 0, pid as u32) };
    if handle.is_null() {
        return false;
    }
    // SAFETY: a handle we just opened; closed when `owned` drops.
    let owned = unsafe { OwnedHandle::from_raw_handle(handle) };
    // SAFETY: a valid process handle with PROCESS_TERMINATE.
    unsafe { TerminateProcess(owned.as_raw_handle(), 1) != 0 }
}

/// The program exited and its output went quiet: a pseudo console's
/// output ends only when the console is closed, so it is closed now (the
/// reader drains what it still holds); true when it was open until now.
///
/// Not at the exit itself: the console host renders what the program
/// wrote on its own time (Wine's slowly, a cell at a time), and closing
/// the console at the exit loses the tail it has not rendered yet.
pub(in crate::core::session) fn output_idle(io: &Io) -> bool {
    io.close_console()
}

/// How the loop learns that the program exited: a thread waits on the
/// process handle and marks a channel.
pub(in crate::core::session) struct ExitWatch {
    chan: Channel,
    process: std::sync::Arc<OwnedHandle>,
}

impl ExitWatch {
    pub(in crate::core::session) fn new(pid: Pid) -> std::io::Result<ExitWatch> {
        // SAFETY: OpenProcess returns a new handle or null.
        let handle = unsafe {
            OpenProcess(
                PROCESS_SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION,
                0,
                pid as u32,
            )
        };
        if handle.is_null() {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: a handle we just opened, owned from here on.
        let process = std::sync::Arc::new(unsafe { OwnedHandle::from_raw_handle(handle) });
        let chan = Channel::new(Chan::default());
        let fd = chan.0;
        let waited = process.clone();
        std::thread::Builder::new()
            .name(format!("ptypilot-exit-{pid}"))
            .stack_size(64 << 10)
            .spawn(move || {
                // SAFETY: a valid process handle kept alive by the Arc.
                let r = unsafe { WaitForSingleObject(waited.as_raw_handle(), INFINITE) };
                if r == WAIT_OBJECT_0
                    && let Some(chan) = lock().chans.get_mut(&fd)
                {
                    chan.flag = true;
                }
                notify();
            })?;
        Ok(ExitWatch { chan, process })
    }

    /// The channel to poll for the exit.
    pub(in crate::core::session) fn fd(&self) -> Option<RawFd> {
        Some(self.chan.0)
    }

    /// The exit code once the process exited (`GetExitCodeProcess`); `None`
    /// while it runs. Windows has no death by signal: `signal` stays empty.
    pub(in crate::core::session) fn reap(&self, _pid: Pid) -> Option<Exit> {
        let mut code = 0u32;
        // SAFETY: a valid process handle; the call writes one u32.
        if unsafe { GetExitCodeProcess(self.process.as_raw_handle(), &mut code) } == 0 {
            return Some(Exit::default());
        }
        if code == STILL_ACTIVE as u32 {
            // STILL_ACTIVE is also a code a program may exit with: the
            // handle tells.
            // SAFETY: a valid process handle; a zero timeout only polls.
            let done = unsafe { WaitForSingleObject(self.process.as_raw_handle(), 0) };
            if done != WAIT_OBJECT_0 {
                return None;
            }
        }
        Some(Exit {
            exit_code: Some(code as i32),
            ..Exit::default()
        })
    }
}

/// Wakes the session thread out of [`poll`]; after [`Waker::close`], a
/// wake-up is a no-op.
pub(in crate::core::session) struct Waker {
    chan: Mutex<Option<Channel>>,
}

impl Waker {
    pub(in crate::core::session) fn new() -> std::io::Result<Waker> {
        Ok(Waker {
            chan: Mutex::new(Some(Channel::new(Chan::default()))),
        })
    }

    /// The channel to poll (-1 once closed, which [`poll`] ignores).
    pub(in crate::core::session) fn fd(&self) -> RawFd {
        let chan = self.chan.lock().unwrap_or_else(|e| e.into_inner());
        chan.as_ref().map_or(-1, Channel::fd)
    }

    pub(in crate::core::session) fn wake(&self) {
        let fd = self.fd();
        if let Some(chan) = lock().chans.get_mut(&fd) {
            chan.flag = true;
        }
        notify();
    }

    pub(in crate::core::session) fn drain(&self) {
        let fd = self.fd();
        if let Some(chan) = lock().chans.get_mut(&fd) {
            chan.flag = false;
        }
    }

    pub(in crate::core::session) fn close(&self) {
        self.chan.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}
