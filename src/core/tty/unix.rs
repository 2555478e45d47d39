//! Terminal facts on Unix, from the kernel's terminal state (see the
//! parent module).
use std::ffi::{CStr, CString};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::Modes;
use crate::core::proc_tree::Pid;

/// An open descriptor of a terminal's slave side ([`open_slave`]).
pub type Slave = OwnedFd;

/// The terminal's modes, read through the master (`tcgetattr`: on Linux
/// the master's termios calls act on the slave; on macOS master and slave
/// share one terminal). `None` when the call fails (the terminal is gone).
pub fn modes(master: RawFd) -> Option<Modes> {
    // SAFETY: an all-zero termios is a valid value for tcgetattr to fill.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: `t` is a valid, writable termios; a bad fd only fails.
    if unsafe { libc::tcgetattr(master, &mut t) } != 0 {
        return None;
    }
    Some(Modes {
        echo: t.c_lflag & libc::ECHO != 0,
        canonical: t.c_lflag & libc::ICANON != 0,
    })
}

/// All of the terminal's modes, read through the master as [`modes`]
/// does: for a caller that puts them back later ([`set_termios`]).
pub fn termios(master: RawFd) -> Option<libc::termios> {
    // SAFETY: an all-zero termios is a valid value for tcgetattr to fill.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: `t` is a valid, writable termios; a bad fd only fails.
    (unsafe { libc::tcgetattr(master, &mut t) } == 0).then_some(t)
}

/// Sets all of the terminal's modes at once (`tcsetattr(TCSANOW)` through
/// the master, which acts on the terminal its programs see, on Linux and
/// macOS alike); false when the call fails (the terminal is gone).
pub fn set_termios(master: RawFd, modes: &libc::termios) -> bool {
    // SAFETY: tcsetattr only reads the structure; a bad fd only fails.
    unsafe { libc::tcsetattr(master, libc::TCSANOW, modes) == 0 }
}

/// The terminal's foreground process group (`tcgetpgrp` on the master, on
/// Linux and macOS alike): the job that reads the terminal. `None` when
/// there is none (the session leader exited) or the call fails.
pub fn foreground_group(master: RawFd) -> Option<Pid> {
    // SAFETY: tcgetpgrp only reads; a bad fd only fails.
    let group = unsafe { libc::tcgetpgrp(master) };
    (group > 0).then_some(group)
}

/// The path of the terminal slave whose master is `master`
/// (`ptsname_r` on Linux; on macOS `ptsname`, whose static buffer is copied
/// at once under a lock, so that two threads asking at the same moment do
/// not read each other's answer). `None` when `master` is not a pty master.
pub fn slave_path(master: RawFd) -> Option<CString> {
    let mut buf = [0 as libc::c_char; 128];
    #[cfg(target_os = "linux")]
    // SAFETY: `buf` is writable for its length; ptsname_r NUL-terminates.
    let ok = unsafe { libc::ptsname_r(master, buf.as_mut_ptr(), buf.len()) } == 0;
    #[cfg(not(target_os = "linux"))]
    let ok = {
        static PTSNAME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one_at_a_time = PTSNAME.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: ptsname returns its static buffer or NULL; it is copied
        // under the lock.
        unsafe {
            let name = libc::ptsname(master);
            !name.is_null() && {
                let bytes = CStr::from_ptr(name).to_bytes_with_nul();
                bytes.len() <= buf.len() && {
                    std::ptr::copy_nonoverlapping(name, buf.as_mut_ptr(), bytes.len());
                    true
                }
            }
        }
    };
    // SAFETY: on success the buffer holds a NUL-terminated string.
    ok.then(|| unsafe { CStr::from_ptr(buf.as_ptr()) }.to_owned())
}

/// The device number (`st_rdev`) of the terminal at `slave`: a process's
/// descriptor on the same device is this terminal, whatever path opened it.
pub fn device(slave: &CStr) -> Option<u64> {
    // SAFETY: an all-zero stat is a valid value for stat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a writable stat.
    if unsafe { libc::stat(slave.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.st_rdev as u64)
}

/// The device number of `/dev/tty`, which stands for a process's controlling
/// terminal: a program in this terminal's session that opened `/dev/tty`
/// (`getpass`, `less`) reads this terminal through it. Linux: major 5, minor
/// 0; macOS: major 2, minor 0.
pub fn controlling_tty_device() -> u64 {
    #[cfg(target_os = "linux")]
    {
        libc::makedev(5, 0) as u64
    }
    #[cfg(not(target_os = "linux"))]
    {
        static DEVICE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
        *DEVICE.get_or_init(|| device(c"/dev/tty").unwrap_or(u64::MAX))
    }
}

/// Opens the terminal's slave for [`input_pending`] (`O_NOCTTY`, so it
/// never becomes anyone's controlling terminal; non-blocking; close-on-exec).
/// `None` when it cannot be opened (the terminal is gone, a descriptor limit).
///
/// While the caller holds it the pty's master sees no end-of-file: close it
/// once the program exited.
pub fn open_slave(slave: &CStr) -> Option<OwnedFd> {
    // SAFETY: a plain open of a NUL-terminated path.
    let fd = unsafe {
        libc::open(
            slave.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    };
    // SAFETY: the kernel just gave us this descriptor.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Whether input written to the terminal waits unread: a read by the
/// program would return at once (in canonical mode: a whole line is there;
/// a partly typed line is still being waited for). `slave` is a descriptor
/// of the terminal's slave side ([`open_slave`]).
///
/// Linux: the slave is polled. A write to the master reaches the line
/// discipline a moment later, through a kernel work queue; polling the
/// slave runs that pending work first (`n_tty_poll` flushes it), so input
/// written before this call is seen even if the program has not been
/// scheduled since (`FIONREAD` alone would miss it). macOS: `FIONREAD` on
/// the slave (input is processed as it is written).
///
/// `None` when the call fails: the caller must not conclude that nothing
/// waits.
pub fn input_pending(slave: &OwnedFd) -> Option<bool> {
    #[cfg(target_os = "linux")]
    {
        readable(slave.as_raw_fd())
    }
    #[cfg(not(target_os = "linux"))]
    {
        queued_bytes(slave.as_raw_fd()).map(|n| n > 0)
    }
}

/// Whether output the program wrote waits in the master, not yet read by
/// the session (polled, which on Linux also runs the kernel's pending
/// transfer from the slave). `None` when the poll fails.
pub fn output_pending(master: RawFd) -> Option<bool> {
    readable(master)
}

/// `poll` with no timeout: readable (or hung up) now.
fn readable(fd: RawFd) -> Option<bool> {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: one valid pollfd, no waiting.
        let n = unsafe { libc::poll(&mut p, 1, 0) };
        if n >= 0 {
            return Some(n > 0 && p.revents & libc::POLLIN != 0);
        }
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return None;
        }
    }
}

/// Bytes a read of `fd` would find (`FIONREAD`).
#[cfg(not(target_os = "linux"))]
fn queued_bytes(fd: RawFd) -> Option<usize> {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer, to `n`.
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD as _, &mut n as *mut libc::c_int) };
    (r >= 0).then(|| n.max(0) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tty::InputKind;

    #[test]
    fn kinds_follow_canonical_and_echo() {
        let m = |canonical, echo| Modes { echo, canonical };
        assert_eq!(m(true, true).kind(), InputKind::Line);
        assert_eq!(m(true, false).kind(), InputKind::Password);
        assert_eq!(m(false, false).kind(), InputKind::Key);
        assert_eq!(m(false, true).kind(), InputKind::Key);
        assert!(m(true, false).hides_input());
        assert!(!m(false, false).hides_input());
        assert!(!m(true, true).hides_input());
    }

    #[test]
    fn a_closed_descriptor_gives_no_answer() {
        assert_eq!(modes(-1), None);
        assert_eq!(foreground_group(-1), None);
        assert_eq!(slave_path(-1), None);
        assert_eq!(output_pending(-1), Some(false));
        assert!(open_slave(c"/nonexistent/pts").is_none());
    }
}
