//! The session's OS pieces on Unix: descriptors, `poll(2)`, `waitpid` and
//! signals (see the parent module for the interface).
#[cfg(target_os = "linux")]
use std::os::fd::FromRawFd;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::{Arc, Mutex};

use nix::sys::signal::Signal;
use nix::sys::wait::{WaitPidFlag, WaitStatus};
use nix::unistd::Pid as NixPid;

use super::super::Exit;
use super::super::READ_BATCH;
use super::super::output::{ReadEnd, ReadMode};
use super::super::spawn::Io;
use crate::core::proc_tree::Pid;

/// One entry of [`poll`]: `poll(2)`'s own struct.
pub(in crate::core::session) type PollFd = libc::pollfd;
pub(in crate::core::session) use libc::{POLLERR, POLLHUP, POLLIN, POLLNVAL, POLLOUT};

/// `poll(2)`: waits until an entry is ready or `timeout_ms` passed (-1:
/// no limit); the number of ready entries, or -1 (`EINTR`: go round again).
#[inline]
pub(in crate::core::session) fn poll(fds: &mut [PollFd], timeout_ms: i32) -> i32 {
    // SAFETY: `fds` is a valid array of initialised pollfd structs.
    unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) }
}

/// Sends `signal` to the program (`kill(2)`); false if it could not.
pub(in crate::core::session) fn signal_program(pid: Pid, _io: &Io, signal: Signal) -> bool {
    nix::sys::signal::kill(NixPid::from_raw(pid), signal).is_ok()
}

/// Nothing to do on Unix when the program exited and its output went
/// quiet: the terminal's end comes when the last holder of the slave
/// closes it. False: nothing was closed.
#[inline]
pub(in crate::core::session) fn output_idle(_io: &Io) -> bool {
    false
}

/// Writes as much of `data` as the non-blocking descriptor takes now.
pub(in crate::core::session) fn write_some(fd: RawFd, data: &[u8]) -> usize {
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

/// Discards what the terminal at `slave` holds for its readers (TCIFLUSH).
/// Failing to open it (the session just ended) discards nothing.
pub(in crate::core::session) fn flush_unread_input(slave: &std::ffi::CStr) {
    // SAFETY: a plain open of a NUL-terminated path; the descriptor is
    // closed below.
    let fd = unsafe {
        libc::open(
            slave.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return;
    }
    // SAFETY: `fd` is the descriptor just opened; it is closed right after.
    unsafe {
        libc::tcflush(fd, libc::TCIFLUSH);
        libc::close(fd);
    }
}

pub(in crate::core::session) fn set_nonblocking(fd: RawFd) -> std::io::Result<()> {
    // SAFETY: plain fcntl calls on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Bytes waiting to be read from `fd` (`FIONREAD`; on a pty master, in the
/// terminal's read buffer); 0 if unknown.
pub(in crate::core::session) fn pending_input(fd: RawFd) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer, to `n`.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD as _, &mut n as *mut libc::c_int) };
    if r < 0 { 0 } else { n.max(0) as usize }
}

/// Reads the non-blocking `fd` into `batch` as `mode` says, at most until
/// `READ_BATCH` bytes are in it.
pub(in crate::core::session) fn read_into(
    fd: RawFd,
    batch: &mut Vec<u8>,
    mode: ReadMode,
) -> ReadEnd {
    // EIOs read so far, and whether the last read was an EIO with nothing
    // waiting (see below).
    let mut eios = 0;
    let mut empty_eio = false;
    while batch.len() < READ_BATCH {
        let room = READ_BATCH - batch.len();
        batch.reserve(room);
        let spare = batch.spare_capacity_mut();
        // SAFETY: `spare` is valid for writes of at least `room` bytes.
        let n = unsafe { libc::read(fd, spare.as_mut_ptr().cast(), room) };
        if n > 0 {
            // SAFETY: `read` initialised the first `n` (<= room) spare bytes.
            unsafe { batch.set_len(batch.len() + n as usize) };
            empty_eio = false;
            if mode == ReadMode::Once && (n as usize) < room {
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
            // EIO on a pty master: every holder of the terminal closed it.
            // Linux can report it while the end of the output is still on
            // its way into the read buffer (seen about once in 5 000
            // sessions under 100 floods at once, one reader thread each:
            // right after the EIO the buffer held the missing bytes; see
            // bench/notes/2026-11-26-lost-tails.md). So the end counts only when two
            // reads in a row say EIO with nothing waiting in the buffer;
            // what waits is read first (at most `EIO_READS_MAX` EIOs, so a
            // terminal that keeps answering both ways cannot hold the loop).
            Some(libc::EIO) => {
                eios += 1;
                if eios > EIO_READS_MAX {
                    return ReadEnd::Eof;
                }
                if pending_input(fd) > 0 {
                    continue;
                }
                if empty_eio {
                    return ReadEnd::Eof;
                }
                empty_eio = true;
                std::thread::yield_now();
                continue;
            }
            // End of the terminal (confirmed), or an error reading a pipe.
            _ => return ReadEnd::Eof,
        }
    }
    ReadEnd::Again
}

/// The most EIOs [`read_into`] reads past in one call (see there).
const EIO_READS_MAX: u32 = 8;

/// How the loop learns that the child exited.
pub(in crate::core::session) enum ExitWatch {
    /// Linux: a pidfd turns readable when the process exits. (Matched
    /// everywhere, made only on Linux.)
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    PidFd(OwnedFd),
    /// Elsewhere: a thread blocks in `waitpid` and leaves the status here.
    Thread(Arc<Mutex<Option<WaitStatus>>>),
}

impl ExitWatch {
    pub(in crate::core::session) fn new(pid: Pid) -> std::io::Result<ExitWatch> {
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

    /// The descriptor to poll for the exit, if there is one (a pidfd);
    /// otherwise the loop polls with a short timeout and asks [`ExitWatch::reap`].
    pub(in crate::core::session) fn fd(&self) -> Option<RawFd> {
        match self {
            ExitWatch::PidFd(fd) => Some(fd.as_raw_fd()),
            ExitWatch::Thread(_) => None,
        }
    }

    /// Collects the exit status of `pid` if it has exited: `None` while it
    /// runs; a status without a code or signal when someone else reaped it.
    pub(in crate::core::session) fn reap(&self, pid: Pid) -> Option<Exit> {
        let status = match self {
            ExitWatch::PidFd(_) => {
                match nix::sys::wait::waitpid(NixPid::from_raw(pid), Some(WaitPidFlag::WNOHANG)) {
                    Ok(WaitStatus::StillAlive) => return None,
                    Ok(status) => Some(status),
                    Err(_) => None,
                }
            }
            ExitWatch::Thread(slot) => Some(slot.lock().unwrap_or_else(|e| e.into_inner()).take()?),
        };
        Some(match status {
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
        })
    }
}

/// Wakes the session thread out of `poll`.
///
/// Its descriptors are closed as soon as the session ends (not when the last
/// handle to the session is dropped), so finished sessions hold no descriptor;
/// a wake-up after that is a no-op.
pub(in crate::core::session) struct Waker {
    fds: std::sync::RwLock<Option<(OwnedFd, Option<OwnedFd>)>>,
}

impl Waker {
    pub(in crate::core::session) fn new() -> std::io::Result<Waker> {
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
    pub(in crate::core::session) fn fd(&self) -> RawFd {
        let fds = self.fds.read().unwrap_or_else(|e| e.into_inner());
        fds.as_ref().map_or(-1, |(read, _)| read.as_raw_fd())
    }

    pub(in crate::core::session) fn wake(&self) {
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

    pub(in crate::core::session) fn drain(&self) {
        let fd = self.fd();
        let mut buf = [0u8; 64];
        // SAFETY: reads into a local buffer until the descriptor is empty.
        while fd >= 0 && unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
    }

    pub(in crate::core::session) fn close(&self) {
        self.fds.write().unwrap_or_else(|e| e.into_inner()).take();
    }
}
