//! The pseudo-terminal and starting a program on it, behind one interface
//! with one file per platform (portable-pty's `unix`/`win` split is the
//! model):
//!
//! - `unix/`: a pty pair (`posix_openpt`), its size (`TIOCSWINSZ`) and
//!   input flags (termios), and the ways a program is started on its slave
//!   (`posix_spawn` on Linux with glibc, `fork` for another user).
//! - `windows.rs`: a pseudo console (ConPTY, through portable-pty) and the
//!   Job Object that holds a session's processes, so a tree ends as surely
//!   as a process group does on Unix.
//!
//! [`set_size`] is the one call the rest of the core makes on every
//! platform; the rest is the platform's own.
#[cfg(unix)]
pub(crate) mod unix;
#[cfg(unix)]
pub use unix::{Pair, add_input_flags, open_pair, set_size, slave_name};

#[cfg(windows)]
pub(crate) mod windows;
#[cfg(windows)]
pub use windows::{Job, set_size};
