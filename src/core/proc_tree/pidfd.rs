//! Linux pidfds (5.3+): a descriptor bound to one process, so a signal sent
//! through it can never reach a process that reused the pid, and a wait on
//! it needs no polling. libc has the syscall numbers but no wrappers.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use nix::sys::signal::Signal;

use super::ProcRef;

/// What [`handle`] found.
pub(super) enum Handle {
    /// A verified pidfd of the live process.
    Pidfd(OwnedFd),
    /// The process has exited (or its pid belongs to another process now).
    Gone,
    /// pidfds cannot be used here (old kernel, seccomp, out of descriptors).
    Unavailable,
}

/// A pidfd for this very process: opened first, then checked against the
/// start time. The check is conclusive: the process existed when `proc` was
/// made and still exists after the open, so it held the pid throughout and
/// the descriptor is its own.
pub(super) fn handle(proc: &ProcRef) -> Handle {
    match open(proc.pid) {
        Opened::Fd(fd) if proc.alive() => Handle::Pidfd(fd),
        Opened::Fd(_) | Opened::NoProcess => Handle::Gone,
        Opened::Unavailable => Handle::Unavailable,
    }
}

/// Sends `signal` to `proc` through a verified pidfd: `Some(sent)`, or
/// `None` when pidfds are unavailable and the caller must fall back.
pub(super) fn signal(proc: &ProcRef, signal: Signal) -> Option<bool> {
    match handle(proc) {
        Handle::Pidfd(fd) => Some(send(&fd, signal)),
        Handle::Gone => Some(false),
        Handle::Unavailable => None,
    }
}

/// Completes when `target` has exited, with `true`; `false` at once when
/// pidfds cannot be used (the caller polls instead).
pub(super) async fn exited(target: &ProcRef) -> bool {
    match handle(target) {
        Handle::Gone => true,
        Handle::Pidfd(fd) => {
            use tokio::io::Interest;
            use tokio::io::unix::AsyncFd;
            // SAFETY: the OwnedFd is moved into the AsyncFd, so the descriptor
            // stays open and the same for the AsyncFd's whole life.
            let registered = unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) };
            // A pidfd reports readable once the process has exited.
            matches!(registered, Ok(ref fd) if fd.readable().await.is_ok())
        }
        Handle::Unavailable => false,
    }
}

/// What `pidfd_open` returned.
enum Opened {
    Fd(OwnedFd),
    /// No process with that pid (or the pid is a thread, not a process).
    NoProcess,
    /// The call itself is not available or failed for lack of resources.
    Unavailable,
}

fn open(pid: i32) -> Opened {
    // SAFETY: pidfd_open takes two integers and touches no memory of ours.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd >= 0 {
        // SAFETY: a non-negative return is a new descriptor that we own.
        return Opened::Fd(unsafe { OwnedFd::from_raw_fd(fd as i32) });
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::ESRCH | libc::EINVAL) => Opened::NoProcess,
        _ => Opened::Unavailable,
    }
}

/// `pidfd_send_signal`; true when the signal was sent.
fn send(fd: &OwnedFd, signal: Signal) -> bool {
    // SAFETY: the descriptor is open for the whole call; a null siginfo
    // makes the kernel fill it in as kill(2) would.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_pidfd_send_signal,
            fd.as_raw_fd(),
            signal as libc::c_int,
            std::ptr::null::<libc::siginfo_t>(),
            0,
        )
    };
    rc == 0
}
