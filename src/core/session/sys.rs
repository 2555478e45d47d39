//! The OS pieces of a session: the descriptor that wakes the session thread,
//! the watch for the child's exit, and non-blocking reads, writes and resizes.
#[cfg(target_os = "linux")]
use std::os::fd::FromRawFd;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::{Arc, Mutex};

use nix::sys::wait::WaitStatus;
use nix::unistd::Pid as NixPid;

use crate::core::proc_tree::Pid;

/// Writes as much of `data` as the non-blocking descriptor takes now.
pub(super) fn write_some(fd: RawFd, data: &[u8]) -> usize {
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
pub(super) fn flush_unread_input(slave: &std::ffi::CStr) {
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

pub(super) fn set_nonblocking(fd: RawFd) -> std::io::Result<()> {
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
pub(super) fn pending_input(fd: RawFd) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer, to `n`.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD as _, &mut n as *mut libc::c_int) };
    if r < 0 { 0 } else { n.max(0) as usize }
}

/// How the loop learns that the child exited.
pub(super) enum ExitWatch {
    /// Linux: a pidfd turns readable when the process exits. (Matched
    /// everywhere, made only on Linux.)
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    PidFd(OwnedFd),
    /// Elsewhere: a thread blocks in `waitpid` and leaves the status here.
    Thread(Arc<Mutex<Option<WaitStatus>>>),
}

impl ExitWatch {
    pub(super) fn new(pid: Pid) -> std::io::Result<ExitWatch> {
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
pub(super) struct Waker {
    fds: std::sync::RwLock<Option<(OwnedFd, Option<OwnedFd>)>>,
}

impl Waker {
    pub(super) fn new() -> std::io::Result<Waker> {
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
    pub(super) fn fd(&self) -> RawFd {
        let fds = self.fds.read().unwrap_or_else(|e| e.into_inner());
        fds.as_ref().map_or(-1, |(read, _)| read.as_raw_fd())
    }

    pub(super) fn wake(&self) {
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

    pub(super) fn drain(&self) {
        let fd = self.fd();
        let mut buf = [0u8; 64];
        // SAFETY: reads into a local buffer until the descriptor is empty.
        while fd >= 0 && unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
    }

    pub(super) fn close(&self) {
        self.fds.write().unwrap_or_else(|e| e.into_inner()).take();
    }
}
