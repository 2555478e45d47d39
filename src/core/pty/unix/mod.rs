//! Pseudo-terminals on Unix: a pty pair opened with no program on it, the
//! name of a master's slave side, and starting a program on a pty without
//! forking the Node process (`spawn`, Linux with glibc), as another user
//! (`fork`), from the C strings both give the child (`child`).
//!
//! [`open_pair`] gives both descriptors close-on-exec from the start, so a
//! program that this process (or any thread of it) starts meanwhile never
//! inherits them. Its size is set before it is returned.
//!
//! ```
//! use std::os::fd::AsRawFd;
//! let pair = ptypilot::core::pty::open_pair(100, 30).unwrap();
//! assert!(pair.name.starts_with("/dev/"));
//! assert_eq!(ptypilot::core::pty::slave_name(pair.master.as_raw_fd()), Some(pair.name.clone()));
//! ```

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use crate::core::tty;

pub(crate) mod child;
pub(crate) mod fork;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) mod spawn;

/// Both sides of a pseudo-terminal, close-on-exec.
#[derive(Debug)]
pub struct Pair {
    /// The master: what a terminal emulator reads and writes.
    pub master: OwnedFd,
    /// The slave: what a program uses as its terminal. Opened with
    /// `O_NOCTTY`, so it never becomes this process's controlling terminal.
    pub slave: OwnedFd,
    /// The slave's path (`/dev/pts/3`).
    pub name: String,
}

/// Opens a pseudo-terminal pair of `cols` × `rows` (any size a `winsize`
/// holds; 0 means unknown, as the kernel takes it).
///
/// Linux: `posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)`, then the slave by
/// its name with `O_CLOEXEC`. macOS: `posix_openpt` does not take
/// `O_CLOEXEC`, so both descriptors get `FD_CLOEXEC` right after they are
/// opened (a program another thread starts in between could inherit them).
/// Errors are the failing call's errno.
pub fn open_pair(cols: u16, rows: u16) -> io::Result<Pair> {
    #[cfg(target_os = "linux")]
    let master_flags = libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC;
    #[cfg(not(target_os = "linux"))]
    let master_flags = libc::O_RDWR | libc::O_NOCTTY;
    // SAFETY: posix_openpt takes flags and returns a new descriptor or -1.
    let fd = unsafe { libc::posix_openpt(master_flags) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just gave us this descriptor.
    let master = unsafe { OwnedFd::from_raw_fd(fd) };
    #[cfg(not(target_os = "linux"))]
    set_cloexec(master.as_raw_fd())?;
    // SAFETY: grantpt and unlockpt take an open master descriptor.
    if unsafe { libc::grantpt(fd) } != 0 || unsafe { libc::unlockpt(fd) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let path = tty::slave_path(fd).ok_or_else(io::Error::last_os_error)?;
    let name = path
        .to_str()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "pty name not UTF-8"))?
        .to_owned();
    #[cfg(target_os = "linux")]
    let slave_flags = libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC;
    #[cfg(not(target_os = "linux"))]
    let slave_flags = libc::O_RDWR | libc::O_NOCTTY;
    // SAFETY: a plain open of a NUL-terminated path.
    let sfd = unsafe { libc::open(path.as_ptr(), slave_flags) };
    if sfd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just gave us this descriptor.
    let slave = unsafe { OwnedFd::from_raw_fd(sfd) };
    #[cfg(not(target_os = "linux"))]
    set_cloexec(slave.as_raw_fd())?;
    set_size(master.as_raw_fd(), cols, rows)?;
    Ok(Pair {
        master,
        slave,
        name,
    })
}

/// Sets the terminal size of the pty `fd` (either side); the program in its
/// foreground gets `SIGWINCH`.
pub fn set_size(fd: RawFd, cols: u16, rows: u16) -> io::Result<()> {
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCSWINSZ reads a winsize struct we own.
    if unsafe { libc::ioctl(fd, libc::TIOCSWINSZ as _, &size as *const libc::winsize) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Turns on termios input flags (`c_iflag`: `IUTF8`, `IXANY`, ...) of the
/// pty `fd` (either side: on the master, the slave's settings change).
pub fn add_input_flags(fd: RawFd, flags: libc::tcflag_t) -> io::Result<()> {
    let mut termios = std::mem::MaybeUninit::<libc::termios>::uninit();
    // SAFETY: tcgetattr fills in the struct we own; tcsetattr reads it.
    unsafe {
        if libc::tcgetattr(fd, termios.as_mut_ptr()) != 0 {
            return Err(io::Error::last_os_error());
        }
        let mut termios = termios.assume_init();
        termios.c_iflag |= flags;
        if libc::tcsetattr(fd, libc::TCSANOW, &termios) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn set_cloexec(fd: RawFd) -> io::Result<()> {
    // SAFETY: sets FD_CLOEXEC on a descriptor we own.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The path of the slave side of the pty master `fd` (`/dev/pts/3`), or
/// `None` when `fd` is not a pty master ([`tty::slave_path`] as a `String`).
pub fn slave_name(fd: RawFd) -> Option<String> {
    tty::slave_path(fd)?.into_string().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cloexec(fd: RawFd) -> bool {
        // SAFETY: F_GETFD on a descriptor we own.
        unsafe { libc::fcntl(fd, libc::F_GETFD) & libc::FD_CLOEXEC != 0 }
    }

    #[test]
    fn pair_is_cloexec_sized_and_connected() {
        let pair = open_pair(123, 45).unwrap();
        assert!(cloexec(pair.master.as_raw_fd()));
        assert!(cloexec(pair.slave.as_raw_fd()));
        let mut size = libc::winsize {
            ws_row: 0,
            ws_col: 0,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: TIOCGWINSZ writes a winsize struct we own.
        let rc = unsafe { libc::ioctl(pair.slave.as_raw_fd(), libc::TIOCGWINSZ as _, &mut size) };
        assert_eq!(rc, 0);
        assert_eq!((size.ws_col, size.ws_row), (123, 45));
        // SAFETY: isatty on descriptors we own.
        assert_eq!(unsafe { libc::isatty(pair.slave.as_raw_fd()) }, 1);
        assert_eq!(
            slave_name(pair.master.as_raw_fd()).as_deref(),
            Some(pair.name.as_str())
        );
        // A byte written to the master reaches the slave (canonical mode:
        // a whole line).
        // SAFETY: plain writes and reads of local buffers.
        unsafe {
            assert_eq!(
                libc::write(pair.master.as_raw_fd(), b"hi\n".as_ptr().cast(), 3),
                3
            );
            let mut got = [0u8; 8];
            let n = libc::read(pair.slave.as_raw_fd(), got.as_mut_ptr().cast(), got.len());
            assert_eq!(&got[..n as usize], b"hi\n");
        }
    }

    #[test]
    fn input_flags_set_on_the_master_reach_the_slave() {
        let pair = open_pair(80, 24).unwrap();
        add_input_flags(pair.master.as_raw_fd(), libc::IUTF8 | libc::IXANY).unwrap();
        let mut termios = std::mem::MaybeUninit::<libc::termios>::uninit();
        // SAFETY: tcgetattr fills in the struct we own.
        let termios = unsafe {
            assert_eq!(
                libc::tcgetattr(pair.slave.as_raw_fd(), termios.as_mut_ptr()),
                0
            );
            termios.assume_init()
        };
        assert_eq!(
            termios.c_iflag & (libc::IUTF8 | libc::IXANY),
            libc::IUTF8 | libc::IXANY
        );
        assert_ne!(
            termios.c_iflag & libc::ICRNL,
            0,
            "the kernel's defaults stay"
        );
    }

    #[test]
    fn slave_name_of_something_else_is_none() {
        let file = std::fs::File::open("/dev/null").unwrap();
        assert_eq!(slave_name(file.as_raw_fd()), None);
    }
}
